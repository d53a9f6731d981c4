/**
 * Blobs in an Azure Blob container. uploadStream stages blocks and commits the block list at the
 * end, so a blob exists only once complete; uncommitted blocks of a failed upload are invisible
 * and discarded by the service.
 */
import { BlobServiceClient, RestError, StorageSharedKeyCredential, type ContainerClient } from "@azure/storage-blob";
import type { Readable } from "node:stream";
import type { BlobStoreConfig } from "./blob-config.js";
import { assertKey, BlobNotFoundError, type BlobStore, type ByteRange, type PutOptions } from "./blob-store.js";
import { counted } from "./counting.js";

type AzureConfig = Extract<BlobStoreConfig, { kind: "azure" }>;

/** Memory per upload is at most BLOCK_SIZE × CONCURRENCY. */
const BLOCK_SIZE = 4 * 1024 * 1024;
const CONCURRENCY = 4;

const isNotFound = (err: unknown) => err instanceof RestError && err.statusCode === 404;

function serviceClient(config: AzureConfig): BlobServiceClient {
  if (config.connectionString) return BlobServiceClient.fromConnectionString(config.connectionString);
  if (!config.account || !config.accountKey)
    throw new Error("Azure blob store needs a connection string or an account and key");
  const endpoint = config.endpoint ?? `https://${config.account}.blob.core.windows.net`;
  return new BlobServiceClient(endpoint, new StorageSharedKeyCredential(config.account, config.accountKey));
}

export class AzureBlobStore implements BlobStore {
  readonly kind = "azure";
  private readonly container: ContainerClient;

  constructor(config: AzureConfig) {
    this.container = serviceClient(config).getContainerClient(config.container);
  }

  async init(): Promise<void> {
    await this.container.createIfNotExists();
  }

  async put(key: string, body: Readable, opts: PutOptions = {}): Promise<{ size: number }> {
    assertKey(key);
    const { stream, bytes } = counted(body, opts.signal);
    try {
      await this.container
        .getBlockBlobClient(key)
        .uploadStream(stream, BLOCK_SIZE, CONCURRENCY, { abortSignal: opts.signal });
      return { size: bytes() };
    } catch (err) {
      stream.destroy();
      throw err;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    assertKey(key);
    try {
      const res = range
        ? await this.container.getBlobClient(key).download(range.start, range.end - range.start + 1)
        : await this.container.getBlobClient(key).download();
      return res.readableStreamBody as Readable;
    } catch (err) {
      throw isNotFound(err) ? new BlobNotFoundError(key) : err;
    }
  }

  async delete(key: string): Promise<void> {
    assertKey(key);
    await this.container.getBlobClient(key).deleteIfExists();
  }

  async exists(key: string): Promise<boolean> {
    assertKey(key);
    return this.container.getBlobClient(key).exists();
  }

  async list(): Promise<string[]> {
    const keys: string[] = [];
    for await (const blob of this.container.listBlobsFlat()) keys.push(blob.name);
    return keys;
  }

  async close(): Promise<void> {}
}
