/**
 * Writes a Server-Sent Events response on a raw Node response: headers at once, `data:` events,
 * `: keep-alive` comments whenever the stream has been silent for the heartbeat interval,
 * backpressure (wait for `drain`), and a `signal` aborted when the client goes away.
 *
 * Events produced in the same turn of the event loop leave in one write (one chunk, one syscall):
 * an agent that yields many deltas at once costs one write, a paced one still sends each delta
 * as it comes (the turn ends before any timer or further I/O is waited for).
 */
import type { OutgoingHttpHeader, ServerResponse } from "node:http";

import { HEARTBEAT_COMMENT as HEARTBEAT } from "./heartbeat.js";

type Headers = Record<string, string | number | string[] | undefined>;

/** The stream's own headers, as name, value pairs; a caller's header of the same name gives way. */
const STREAM_HEADERS = [
  "content-type",
  "text/event-stream",
  "cache-control",
  "no-cache",
  "x-accel-buffering",
  "no",
  "connection",
  "keep-alive",
];
const OWN = new Set(STREAM_HEADERS.filter((_, i) => i % 2 === 0));

/**
 * The response's headers as one flat list of names and values, which Node writes as it is.
 * Spreading them into a new object literal instead cost a slow property definition per header,
 * the largest share of a stream's setup. Names are lower case, as Fastify and Node give them.
 */
function headerList(extra: Headers | undefined): OutgoingHttpHeader[] {
  const list: OutgoingHttpHeader[] = [];
  if (extra) {
    for (const name of Object.keys(extra)) {
      const value = extra[name];
      if (value !== undefined && !OWN.has(name)) list.push(name, value);
    }
  }
  for (const item of STREAM_HEADERS) list.push(item);
  return list;
}

export interface SseWriterOptions {
  /** Silence after which a heartbeat comment is written, in milliseconds. */
  heartbeatMs: number;
  /** Stopped when the client disconnects before the stream ended. */
  onClientGone: { stop(): void };
  /** Extra response headers (e.g. the request id). */
  headers?: Headers;
}

export class SseWriter {
  private clientGone = false;
  private readonly heartbeat: NodeJS.Timeout;
  private pending = "";
  /** Something was written: the headers have gone (writeHead alone only stores them). */
  private wrote = false;
  /** Made only when `drained()` waits on a queued batch: most batches nobody waits for. */
  private flushing?: Promise<void>;
  private resolveFlush?: () => void;

  private readonly res: ServerResponse;
  constructor(res: ServerResponse, opts: SseWriterOptions) {
    this.res = res;
    res.writeHead(200, headerList(opts.headers));
    res.once("close", () => {
      clearInterval(this.heartbeat);
      if (res.writableFinished) return;
      this.clientGone = true;
      opts.onClientGone.stop();
    });
    this.heartbeat = setInterval(() => {
      this.wrote = true;
      this.res.write(HEARTBEAT);
    }, opts.heartbeatMs);
    this.heartbeat.unref();
  }

  /**
   * Sends the headers by the end of this turn of the event loop, before any event: a relayed
   * stream's first chunk may be a while. An event queued by then takes them along in its write,
   * as a proxy's first write does (one write and one packet fewer per stream).
   */
  open(): void {
    setImmediate(() => {
      if (this.pending !== "" || this.wrote || this.closed) return;
      this.wrote = true;
      this.res.flushHeaders();
    });
  }

  /** True once the client has gone or the response has ended: nothing more can be written. */
  get closed(): boolean {
    return this.clientGone || this.res.writableEnded;
  }

  /**
   * Queues one `data:` event (payload already serialized) for this turn's write. Returns false
   * when the socket buffer is full: the caller awaits `drained()` before producing more.
   */
  data(payload: string): boolean {
    return this.queue(`data: ${payload}\n\n`);
  }

  /** One named event (an `event:` line, then `data:`), as the Responses API streams them; otherwise as `data`. */
  named(event: string, payload: string): boolean {
    return this.queue(`event: ${event}\ndata: ${payload}\n\n`);
  }

  private queue(text: string): boolean {
    if (this.closed) return false;
    if (this.pending === "") setImmediate(() => this.flush());
    this.pending += text;
    if (this.pending.length > 65_536) this.flush();
    return !this.res.writableNeedDrain;
  }

  private settle(): void {
    const resolve = this.resolveFlush;
    this.flushing = this.resolveFlush = undefined;
    resolve?.();
  }

  private flush(): void {
    const chunk = this.pending;
    this.pending = "";
    this.settle();
    if (chunk === "" || this.res.writableEnded) return;
    this.heartbeat.refresh();
    this.wrote = true;
    this.res.write(chunk);
  }

  /** Resolves when the queued events are written and the socket can take more, or the client is gone. */
  async drained(): Promise<void> {
    if (this.pending !== "") await (this.flushing ??= new Promise((resolve) => (this.resolveFlush = resolve)));
    if (this.closed || !this.res.writableNeedDrain) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.res.off("drain", done);
        this.res.off("close", done);
        resolve();
      };
      this.res.on("drain", done);
      this.res.on("close", done);
    });
  }

  /** Writes what is queued and ends the response (headers alone if nothing was ever written). */
  end(): void {
    clearInterval(this.heartbeat);
    if (this.res.writableEnded) return;
    const chunk = this.pending;
    this.pending = "";
    this.settle();
    if (chunk) this.res.end(chunk);
    else this.res.end();
  }
}
