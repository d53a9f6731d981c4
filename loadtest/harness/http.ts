/**
 * The harness's HTTP client: undici with one connection pool, no client-side body timeout
 * (the gateway's timeouts are what is under test), every request bounded by an abort signal —
 * its own, and the run's hard stop — and every request body counted against the run's byte cap.
 */
import { Readable } from "node:stream";
import { Agent, request, type Dispatcher } from "undici";

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData["body"];
}

export interface SendOptions {
  method?: Dispatcher.HttpMethod;
  key?: string;
  headers?: Record<string, string>;
  body?: string | Buffer | AsyncIterable<Uint8Array>;
  /** Hard bound for the whole exchange (ms). */
  timeoutMs?: number;
}

/** What the whole run may do: request bytes, and when everything stops. */
export interface HttpBounds {
  maxBytes: number;
  stop?: AbortSignal;
}

export interface Http {
  /** Request body bytes sent (or being sent) so far. */
  readonly bytesSent: number;
  bound(bounds: HttpBounds): void;
  send(url: string, opts?: SendOptions): Promise<HttpResponse>;
  /** Sends and reads the whole body; JSON parsed when the body is JSON. */
  json(url: string, opts?: SendOptions): Promise<{ status: number; body: unknown; text: string }>;
  close(): Promise<void>;
}

/** A body's size: a streamed one declares it in content-length. */
function bodyBytes(opts: SendOptions): number {
  if (opts.body === undefined) return 0;
  if (typeof opts.body === "string") return Buffer.byteLength(opts.body);
  if (Buffer.isBuffer(opts.body)) return opts.body.length;
  return Number(opts.headers?.["content-length"] ?? 0);
}

export function createHttp(connections = 64): Http {
  const dispatcher = new Agent({ connections, bodyTimeout: 0, headersTimeout: 0, keepAliveTimeout: 4000 });
  let bounds: HttpBounds = { maxBytes: Infinity };
  let bytesSent = 0;
  const send = async (url: string, opts: SendOptions = {}): Promise<HttpResponse> => {
    const size = bodyBytes(opts);
    if (bytesSent + size > bounds.maxBytes) {
      throw Object.assign(
        new Error(`byte cap: ${size} B more would pass the run's ${bounds.maxBytes} B (${bytesSent} B sent)`),
        { code: "BYTE_CAP" },
      );
    }
    bounds.stop?.throwIfAborted();
    bytesSent += size;
    const timeout = AbortSignal.timeout(opts.timeoutMs ?? 60_000);
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    const res = await request(url, {
      method: opts.method ?? "GET",
      headers,
      body:
        opts.body === undefined || typeof opts.body === "string" || Buffer.isBuffer(opts.body)
          ? opts.body
          : Readable.from(opts.body),
      dispatcher,
      signal: bounds.stop ? AbortSignal.any([timeout, bounds.stop]) : timeout,
    });
    return { status: res.statusCode, headers: res.headers, body: res.body };
  };
  return {
    get bytesSent() {
      return bytesSent;
    },
    bound(b) {
      bounds = b;
    },
    send,
    async json(url, opts) {
      const res = await send(url, opts);
      const text = await res.body.text();
      let body: unknown = undefined;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // Not JSON (an nginx error page, for instance): the caller sees `text`.
      }
      return { status: res.status, body, text };
    },
    close: () => dispatcher.close(),
  };
}

/** True when a body is the OpenAI error envelope with all four fields present. */
export function isErrorEnvelope(body: unknown): boolean {
  const err = (body as { error?: Record<string, unknown> } | undefined)?.error;
  return !!err && typeof err.message === "string" && "type" in err && "param" in err && "code" in err;
}
