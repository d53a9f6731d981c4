/**
 * The blob store the configuration names. Each cloud backend is imported only when configured:
 * their SDKs (AWS ~25 MB, Azure ~25 MB of RSS each) would otherwise sit in every process.
 */
import type { BlobStoreConfig } from "./blob-config.js";
import type { BlobStore } from "./blob-store.js";
import { LocalBlobStore } from "./local.js";

export async function createBlobStore(config: BlobStoreConfig): Promise<BlobStore> {
  switch (config.kind) {
    case "local":
      return new LocalBlobStore(config.dir);
    case "s3":
      return new (await import("./s3.js")).S3BlobStore(config);
    case "azure":
      return new (await import("./azure.js")).AzureBlobStore(config);
  }
}
