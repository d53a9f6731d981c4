/**
 * Blobs in an S3 API bucket (AWS S3, MinIO, the platform's object store). Large bodies go up as a
 * multipart upload, which becomes an object only when completed; a failed one is aborted.
 */
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import type { Readable } from "node:stream";
import type { BlobStoreConfig } from "./blob-config.js";
import { assertKey, BlobNotFoundError, type BlobStore, type ByteRange, type PutOptions } from "./blob-store.js";
import { counted } from "./counting.js";

type S3Config = Extract<BlobStoreConfig, { kind: "s3" }>;

/** Memory per upload is at most PART_SIZE × QUEUE_SIZE. */
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 3;

const isNotFound = (err: unknown) =>
  err instanceof S3ServiceException &&
  (err.$metadata.httpStatusCode === 404 || err.name === "NoSuchKey" || err.name === "NotFound");

export class S3BlobStore implements BlobStore {
  readonly kind = "s3";
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(config: S3Config) {
    this.bucket = config.bucket;
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      credentials:
        config.accessKeyId && config.secretAccessKey
          ? { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey }
          : undefined,
      // Streamed bodies would otherwise be sent aws-chunked with trailing checksums, which
      // S3-compatible servers (MinIO versions, emulators) may store verbatim.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
  }

  async init(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await this.client.send(new CreateBucketCommand({ Bucket: this.bucket }));
    }
  }

  async put(key: string, body: Readable, opts: PutOptions = {}): Promise<{ size: number }> {
    assertKey(key);
    const { stream, bytes } = counted(body, opts.signal);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: stream },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    const onAbort = () => void upload.abort().catch(() => {});
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      if (opts.signal?.aborted) throw opts.signal.reason;
      await upload.done();
      return { size: bytes() };
    } catch (err) {
      stream.destroy();
      throw err;
    } finally {
      opts.signal?.removeEventListener("abort", onAbort);
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    assertKey(key);
    try {
      const res = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      return res.Body as Readable;
    } catch (err) {
      throw isNotFound(err) ? new BlobNotFoundError(key) : err;
    }
  }

  async delete(key: string): Promise<void> {
    assertKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async exists(key: string): Promise<boolean> {
    assertKey(key);
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  async list(): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, ContinuationToken: token }));
      for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys;
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
