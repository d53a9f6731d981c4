/**
 * The pass-through every upload flows through on its way to the blob store: counts bytes (and
 * fails the stream as soon as the limit is passed), computes the SHA-256, and keeps the text of
 * small UTF-8 files for the search index. Memory: one chunk in flight plus the captured text.
 */
import { createHash } from "node:crypto";
import { Transform, type TransformCallback } from "node:stream";
import { fileTooLarge } from "../../errors.js";

/** Text beyond this many bytes is not indexed (the file itself is stored whole). */
export const TEXT_INDEX_MAX_BYTES = 2 * 1024 * 1024;

export class UploadMeter extends Transform {
  bytes = 0;
  /** The error the meter raised itself (over the limit), as opposed to one of its source. */
  failure?: Error;
  private readonly hash = createHash("sha256");
  private readonly decoder = new TextDecoder("utf-8", { fatal: true });
  private textParts: string[] | undefined = [];

  private readonly maxBytes: number;
  constructor(maxBytes: number) {
    // Room for a few socket reads, so the parser and the blob writer rarely wait on each other.
    super({ highWaterMark: 1024 * 1024 });
    this.maxBytes = maxBytes;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      this.failure = fileTooLarge(this.maxBytes);
      done(this.failure);
      return;
    }
    this.hash.update(chunk);
    this.captureText(chunk);
    done(null, chunk);
  }

  sha256(): string {
    return this.hash.digest("hex");
  }

  /** The file's text when it is UTF-8 without NUL bytes (its first TEXT_INDEX_MAX_BYTES), else undefined. */
  text(): string | undefined {
    if (!this.textParts) return undefined;
    if (this.bytes <= TEXT_INDEX_MAX_BYTES) {
      try {
        this.textParts.push(this.decoder.decode());
      } catch {
        return undefined;
      }
    }
    return this.textParts.join("");
  }

  private captureText(chunk: Buffer): void {
    if (!this.textParts) return;
    const before = this.bytes - chunk.length;
    if (before >= TEXT_INDEX_MAX_BYTES) return;
    const part = chunk.subarray(0, TEXT_INDEX_MAX_BYTES - before);
    try {
      const text = this.decoder.decode(part, { stream: true });
      // PostgreSQL text cannot hold NUL; a file with one is binary for our purposes.
      if (text.includes("\0")) this.textParts = undefined;
      else this.textParts.push(text);
    } catch {
      this.textParts = undefined;
    }
  }
}
