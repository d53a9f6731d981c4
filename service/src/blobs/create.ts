/** The blob store the configuration names. */
import type { BlobStoreConfig } from "../config.js";
import { AzureBlobStore } from "./azure.js";
import type { BlobStore } from "./blob-store.js";
import { LocalBlobStore } from "./local.js";
import { S3BlobStore } from "./s3.js";

export function createBlobStore(config: BlobStoreConfig): BlobStore {
  switch (config.kind) {
    case "local":
      return new LocalBlobStore(config.dir);
    case "s3":
      return new S3BlobStore(config);
    case "azure":
      return new AzureBlobStore(config);
  }
}
