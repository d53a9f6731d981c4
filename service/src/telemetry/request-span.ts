/**
 * A server span per request, registered only when tracing is on: the route, the API key's id
 * (never the key), the model asked for, and the outcome. It is the active span while the request
 * runs, so the store's, the limiter's and the upstream's spans are its children. The context is
 * entered twice: on arrival (authentication's queries) and again before the handler, since a
 * body is parsed from socket events that do not carry it.
 */
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
} from "@opentelemetry/api";
import type { FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import type { TracingHandle } from "./tracing-handle.js";

const spans = new WeakMap<FastifyRequest, { span: Span; ctx: Context }>();

/** Route template as Fastify matched it (`/v1/files/:file_id`), or none for an unknown URL. */
const routeOf = (request: FastifyRequest): string | undefined => request.routeOptions.url;

function outcome(request: FastifyRequest, reply: FastifyReply): string {
  if (!reply.raw.writableFinished) return "aborted";
  if (reply.statusCode >= 500) return "server_error";
  if (reply.statusCode === 429) return "rate_limited";
  return reply.statusCode >= 400 ? "client_error" : "ok";
}

function modelOf(request: FastifyRequest): string | undefined {
  // A hook over every route: the body's type is whichever route's, so it is read as unknown.
  const body: unknown = request.body;
  const model = typeof body === "object" && body !== null && "model" in body ? body.model : undefined;
  return typeof model === "string" ? model.slice(0, 256) : undefined;
}

function finish(request: FastifyRequest, reply: FastifyReply): void {
  const entry = spans.get(request);
  if (!entry) return;
  const { span } = entry;
  const result = outcome(request, reply);
  const auth = request.auth as FastifyRequest["auth"] | undefined;
  span.setAttributes({
    "http.response.status_code": reply.statusCode,
    "agentport.outcome": result,
    ...(auth && { "agentport.key_id": auth.keyId, "agentport.project_id": auth.projectId }),
  });
  const model = modelOf(request);
  if (model) span.setAttribute("gen_ai.request.model", model);
  if (result === "server_error" || result === "aborted")
    span.setStatus({ code: SpanStatusCode.ERROR, message: result });
  span.end();
  spans.delete(request);
}

export default fp<{ tracing: TracingHandle }>(
  async (app, { tracing }) => {
    app.addHook("onRequest", (request, reply, done) => {
      const route = routeOf(request);
      // A caller's own traceparent makes this request a part of its trace.
      const parent = propagation.extract(ROOT_CONTEXT, request.headers);
      const span = tracing.tracer.startSpan(
        `${request.method} ${route ?? "unknown route"}`,
        {
          kind: SpanKind.SERVER,
          attributes: {
            "http.request.method": request.method,
            ...(route && { "http.route": route }),
            "url.path": request.url.split("?")[0],
          },
        },
        parent,
      );
      const ctx = trace.setSpan(parent, span);
      spans.set(request, { span, ctx });
      // Not onResponse: Fastify runs it only on 'finish', which a response the client left never reaches.
      reply.raw.once("close", () => finish(request, reply));
      context.with(ctx, done);
    });
    app.addHook("preHandler", (request, _reply, done) => {
      const entry = spans.get(request);
      return entry ? context.with(entry.ctx, done) : done();
    });
    app.addHook("onClose", () => tracing.flush());
  },
  { name: "tracing" },
);
