/**
 * The upstream call's client span. It carries the W3C `traceparent` to the upstream, so the
 * upstream's own traces join the request's, and ends when the upstream's body is done with (read,
 * or dropped when the caller leaves), so its duration is the whole generation.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Dispatcher } from "undici";
import { tracer } from "./tracer.js";

type Send = (headers: Record<string, string>) => Promise<Dispatcher.ResponseData>;

/** `send(headers)` as it is when tracing is off; inside a client span (`name`: the upstream path), with `traceparent` added, when on. */
export function tracedUpstream(
  url: string,
  headers: Record<string, string>,
  send: Send,
  name = "POST /chat/completions",
): Promise<Dispatcher.ResponseData> {
  if (!tracer) return send(headers);
  const span = tracer.startSpan(name, {
    kind: SpanKind.CLIENT,
    attributes: {
      "http.request.method": "POST",
      "url.full": withoutCredentials(url),
      "server.address": new URL(url).hostname,
    },
  });
  const withTrace = { ...headers };
  propagation.inject(trace.setSpan(context.active(), span), withTrace);
  return send(withTrace).then(
    (res) => {
      span.setAttribute("http.response.status_code", res.statusCode);
      if (res.statusCode >= 400) span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${res.statusCode}` });
      res.body.once("close", () => span.end());
      return res;
    },
    (err: unknown) => {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as { code?: string }).code ?? "no answer" });
      span.end();
      throw err;
    },
  );
}

/** A base URL may carry a user and password; a span never does. */
function withoutCredentials(url: string): string {
  const u = new URL(url);
  u.username = "";
  u.password = "";
  return u.href;
}
