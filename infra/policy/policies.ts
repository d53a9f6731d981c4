/**
 * The pack's policies, free of the policy SDK: each a name, a description and a pure validator
 * of one resource or of the whole stack. index.ts hands them to the SDK; the tests run them on
 * recorded plans.
 */
import { unprotectedState } from "./protection.js";
import { publicStorage } from "./public-access.js";
import { bucketRegion } from "./region.js";
import type { PolicyInput, Violation } from "./resource.js";
import { placeholderDigests, placeholders, shortSecrets } from "./secrets.js";
import { tlsOff } from "./tls.js";

export interface ResourcePolicy {
  name: string;
  description: string;
  resource: (r: PolicyInput) => Violation[];
}
export interface StackPolicy {
  name: string;
  description: string;
  stack: (rs: PolicyInput[]) => Violation[];
}

export const POLICIES: ReadonlyArray<ResourcePolicy | StackPolicy> = [
  {
    name: "no-placeholder-values",
    description: "No input holds a package placeholder (<REPLACE_WITH_YOUR_...>, any case).",
    resource: placeholders,
  },
  {
    name: "no-placeholder-image-digest",
    description: "No image is pinned to the placeholder digest (sha256 of 64 zeros) a stack file ships with.",
    resource: placeholderDigests,
  },
  {
    name: "secret-lengths",
    description: "Platform secrets are at least as long as the deployment reference suggests.",
    resource: shortSecrets,
  },
  {
    name: "stateful-resources-protected",
    description:
      "Databases, caches, brokers, buckets, storage accounts and their containers, and the platform chart carry protect: true.",
    resource: unprotectedState,
  },
  {
    name: "managed-endpoints-tls",
    description:
      "Managed PostgreSQL, Redis, Cosmos DB and storage accounts require TLS (the vector store excepted, as the reference requires).",
    resource: tlsOff,
  },
  {
    name: "cloudb-bucket-region",
    description: "Cloud-B buckets are in the region signed URLs are generated for.",
    resource: bucketRegion,
  },
  {
    name: "storage-not-public",
    description: "Buckets and storage accounts are not public, except the reference's public bucket or container.",
    stack: publicStorage,
  },
];

/** Every violation the pack reports for these resources. */
export function evaluate(resources: PolicyInput[]): Violation[] {
  return POLICIES.flatMap((p) => ("resource" in p ? resources.flatMap(p.resource) : p.stack(resources)));
}
