import type * as pulumi from "@pulumi/pulumi";

/** What every storage variant gives the platform and the API service (same shape for each). */
export interface StorageOutputs {
  /** storage.provider of the chart. */
  readonly provider: "S3" | "AzureStorage" | "Minio";
  /** storage.secret.<cloudb | clouda | objstore> of the chart values. */
  readonly chartSecret: pulumi.Output<Record<string, string>>;
  /** The chart's objstore component values (enabled only for the in-cluster variant); leaves may be Outputs. */
  readonly componentValues: Record<string, unknown>;
  /** BLOB_STORE and its settings for the API service (into its Kubernetes Secret). */
  readonly serviceEnv: pulumi.Output<Record<string, string>>;
  /** An IAM role the API's ServiceAccount assumes (IRSA) instead of a key in serviceEnv. */
  readonly serviceRoleArn?: pulumi.Output<string>;
}

/** The four buckets/containers of the platform, keyed by their chart parameter. */
export const BUCKET_KEYS = ["BUCKET", "PUBLIC_BUCKET", "EXPORT_PROJECT_BUCKET", "ULTRON_BUCKET"] as const;

/** The resource name of one bucket or container of a storage component (`<component>-public-bucket`). */
export const storeResourceName = (component: string, key: string) => `${component}-${key.toLowerCase().replace(/_/g, "-")}`;

/** True for the store the reference makes public (PUBLIC_BUCKET, PUBLIC_CONTAINER): anonymous reads by design. */
export const isPublicStore = (resourceName: string) => ["PUBLIC_BUCKET", "PUBLIC_CONTAINER"].some((key) => resourceName.endsWith(storeResourceName("", key)));
