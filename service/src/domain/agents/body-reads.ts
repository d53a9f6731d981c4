/**
 * An upstream body's network reads, pulled one at a time from its data events. Node's async
 * iterator over a stream sets up a stream-end watcher and goes through read() for every chunk: for
 * a relay pulling two or three reads a stream, that setup was a large share of the reading. The
 * body is paused while reads wait unpulled (a slow client holds the upstream back, as before).
 */
import type { Readable } from "node:stream";

/** Reads held before the body is paused. */
const HELD = 2;

export class BodyReads {
  private readonly queue: Uint8Array[] = [];
  private ended = false;
  private failure?: Error;
  private wake?: () => void;
  private readonly body: Readable;

  constructor(body: Readable) {
    this.body = body;
    body.on("data", (chunk: Uint8Array) => {
      if (this.queue.push(chunk) >= HELD) body.pause();
      this.notify();
    });
    body.once("end", () => {
      this.ended = true;
      this.notify();
    });
    body.once("error", (err: Error) => {
      this.failure ??= err;
      this.notify();
    });
    body.once("close", () => {
      // Destroyed before its end without an error: cut short, as the stream iterator reports it.
      if (!this.ended)
        this.failure ??= Object.assign(new Error("Premature close"), { code: "ERR_STREAM_PREMATURE_CLOSE" });
      this.notify();
    });
  }

  /** The next read, undefined at the body's end; throws what broke the body. */
  async next(): Promise<Uint8Array | undefined> {
    for (;;) {
      const chunk = this.queue.shift();
      if (chunk !== undefined) {
        if (this.queue.length === 0 && this.body.isPaused()) this.body.resume();
        return chunk;
      }
      if (this.failure) throw this.failure;
      if (this.ended) return undefined;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
