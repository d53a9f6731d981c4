/** Where blobs are kept, as the environment configures it (config/blobs.ts reads it). */
export type BlobStoreConfig =
  | { kind: "local"; dir: string }
  | {
      kind: "s3";
      bucket: string;
      region: string;
      endpoint?: string;
      accessKeyId?: string;
      secretAccessKey?: string;
      forcePathStyle: boolean;
    }
  | {
      kind: "azure";
      container: string;
      connectionString?: string;
      account?: string;
      accountKey?: string;
      endpoint?: string;
    };
