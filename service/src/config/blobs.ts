/** Where file bytes live (BLOB_STORE): local disk, an S3 bucket or an Azure Blob container, each with its variables. */
import { join, resolve } from "node:path";
import type { BlobStoreConfig } from "../blobs/blob-config.js";
import { boolean, choice, noteProblem, optionalText, text, url, type Env } from "./env-readers.js";

export function blobConfig(env: Env, dataDir: string): BlobStoreConfig {
  const kind = choice(env, "BLOB_STORE", ["local", "s3", "azure"], "local", true);
  if (kind === "s3") {
    const bucket = text(env, "S3_BUCKET", "", "a bucket name");
    if (!bucket) noteProblem("S3_BUCKET must be set when BLOB_STORE=s3 (the bucket's name)");
    return {
      kind,
      bucket,
      region: text(env, "S3_REGION", "us-east-1", "an AWS region name"),
      endpoint: url(env, "S3_ENDPOINT", ["http", "https"]),
      accessKeyId: optionalText(env, "S3_ACCESS_KEY_ID", "an access key id"),
      secretAccessKey: optionalText(env, "S3_SECRET_ACCESS_KEY", "a secret access key", true),
      forcePathStyle: boolean(env, "S3_FORCE_PATH_STYLE", false),
    };
  }
  if (kind === "azure") {
    const container = text(env, "AZURE_CONTAINER", "", "a container name");
    const connectionString = optionalText(env, "AZURE_STORAGE_CONNECTION_STRING", "a storage connection string", true);
    const account = optionalText(env, "AZURE_STORAGE_ACCOUNT", "a storage account name");
    const accountKey = optionalText(env, "AZURE_STORAGE_KEY", "the storage account's key", true);
    if (!container) noteProblem("AZURE_CONTAINER must be set when BLOB_STORE=azure (the container's name)");
    if (!connectionString && !(account && accountKey)) {
      noteProblem(
        "AZURE_STORAGE_CONNECTION_STRING, or AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY, must be set when BLOB_STORE=azure",
      );
    }
    return {
      kind,
      container,
      connectionString,
      account,
      accountKey,
      endpoint: url(env, "AZURE_BLOB_ENDPOINT", ["http", "https"]),
    };
  }
  return { kind: "local", dir: resolve(optionalText(env, "BLOB_DIR", "a directory path") ?? join(dataDir, "blobs")) };
}
