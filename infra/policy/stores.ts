/**
 * How the program names the platform's buckets and containers, which the pack reads to find the
 * public one. Its one home is here, inside the pack; infra/storage/types.ts re-exports it.
 */

/** The four buckets/containers of the platform, keyed by their chart parameter. */
export const BUCKET_KEYS = ["BUCKET", "PUBLIC_BUCKET", "EXPORT_PROJECT_BUCKET", "ULTRON_BUCKET"] as const;

/** The resource name of one bucket or container of a storage component (`<component>-public-bucket`). */
export const storeResourceName = (component: string, key: string) =>
  `${component}-${key.toLowerCase().replace(/_/g, "-")}`;

/** True for the store the reference makes public (PUBLIC_BUCKET, PUBLIC_CONTAINER): anonymous reads by design. */
export const isPublicStore = (resourceName: string) =>
  ["PUBLIC_BUCKET", "PUBLIC_CONTAINER"].some((key) => resourceName.endsWith(storeResourceName("", key)));
