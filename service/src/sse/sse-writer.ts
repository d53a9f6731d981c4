/**
 * Writes a Server-Sent Events response on a raw Node response: headers at once, `data:` events,
 * `: keep-alive` comments whenever the stream has been silent for the heartbeat interval,
 * backpressure (wait for `drain`), and a `closed` signal when the client goes away.
 */
import type { ServerResponse } from "node:http";

const HEARTBEAT = ": keep-alive\n\n";

export interface SseWriterOptions {
  /** Silence after which a heartbeat comment is written, in milliseconds. */
  heartbeatMs: number;
  /** Extra response headers (e.g. the request id). */
  headers?: Record<string, string | number | string[] | undefined>;
}

export class SseWriter {
  private readonly abort = new AbortController();
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly res: ServerResponse,
    opts: SseWriterOptions,
  ) {
    res.writeHead(200, {
      ...opts.headers,
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
      connection: "keep-alive",
    });
    // Proxies with idle timeouts see bytes before the first token.
    res.flushHeaders();
    res.once("close", () => {
      clearInterval(this.heartbeat);
      if (!res.writableFinished) this.abort.abort();
    });
    this.heartbeat = setInterval(() => this.res.write(HEARTBEAT), opts.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Aborted when the client disconnects before the stream ended. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get closed(): boolean {
    return this.abort.signal.aborted || this.res.writableEnded;
  }

  /**
   * Writes one `data:` event (payload already serialized). Returns false when the socket buffer is
   * full: the caller awaits `drained()` before writing more.
   */
  data(payload: string): boolean {
    if (this.closed) return false;
    this.heartbeat.refresh();
    return this.res.write(`data: ${payload}\n\n`);
  }

  /** Resolves when the socket can take more, or the client is gone. */
  drained(): Promise<void> {
    if (this.closed || !this.res.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.res.off("drain", done);
        this.res.off("close", done);
        resolve();
      };
      this.res.on("drain", done);
      this.res.on("close", done);
    });
  }

  end(): void {
    clearInterval(this.heartbeat);
    if (!this.res.writableEnded) this.res.end();
  }
}
