/**
 * The harness's HTTP client: undici with one connection pool, no client-side body timeout
 * (the gateway's timeouts are what is under test), every request bounded by an abort signal.
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

export interface Http {
  send(url: string, opts?: SendOptions): Promise<HttpResponse>;
  /** Sends and reads the whole body; JSON parsed when the body is JSON. */
  json(url: string, opts?: SendOptions): Promise<{ status: number; body: unknown; text: string }>;
  close(): Promise<void>;
}

export function createHttp(connections = 64): Http {
  const dispatcher = new Agent({ connections, bodyTimeout: 0, headersTimeout: 0, keepAliveTimeout: 4000 });
  const send = async (url: string, opts: SendOptions = {}): Promise<HttpResponse> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    const res = await request(url, {
      method: opts.method ?? "GET",
      headers,
      body: opts.body === undefined || typeof opts.body === "string" || Buffer.isBuffer(opts.body) ? opts.body : Readable.from(opts.body),
      dispatcher,
      signal: AbortSignal.timeout(opts.timeoutMs ?? 60_000),
    });
    return { status: res.statusCode, headers: res.headers, body: res.body };
  };
  return {
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
