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

/** Store names live in the policy pack (it finds the public store by them and must install alone). */
export { BUCKET_KEYS, isPublicStore, storeResourceName } from "../policy/stores.js";
