/**
 * The service as a Fastify instance. `server.ts` listens; tests build this and inject requests.
 */
import { randomBytes } from "node:crypto";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerOptions } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { ServiceConfig } from "./config.js";
import type { Db } from "./store/db.js";
import type { BlobStore } from "./blobs/blob-store.js";
import { validatorCompiler } from "./validation.js";
import { invalidParam } from "./errors.js";
import { sendApiError, toApiError } from "./plugins/error-handler.js";
import { clientErrorHandler } from "./http/client-error.js";
import { logDestination } from "./http/log-format.js";
import { AccessLog } from "./http/access-log.js";
import { requestLoggerFactory } from "./http/request-logger.js";
import { RequestCounts } from "./metrics/request-counts.js";
import { useDepthCheckedJson } from "./http/json-body.js";
import "./plugins/types.js";
import storePlugin from "./plugins/store.js";
import errorHandler from "./plugins/error-handler.js";
import drainPlugin from "./plugins/drain.js";
import apiKeysPlugin from "./plugins/api-keys.js";
import agentsPlugin from "./plugins/agents.js";
import filesPlugin from "./plugins/files.js";
import metricsPlugin from "./plugins/metrics.js";
import openapiPlugin from "./plugins/openapi.js";
import corsPlugin from "./plugins/cors.js";
import redisPlugin from "./plugins/redis.js";
import keyLimitsPlugin from "./plugins/key-limits.js";
import usagePlugin from "./plugins/usage.js";
import responsesPlugin from "./plugins/responses.js";
import healthRoutes from "./routes/health.js";
import organizationRoutes from "./routes/v1/organization/index.js";
import v1Routes from "./routes/v1/index.js";
import mcpSessionsPlugin from "./mcp/plugin.js";
import mcpRoutes from "./routes/mcp/index.js";
import { startTracing } from "./telemetry/tracer.js";
import tracingPlugin from "./telemetry/request-span.js";

export interface AppOptions {
  config: ServiceConfig;
  /** A store the caller opened (tests); otherwise the app opens the configured one. */
  db?: Db;
  /** A blob store the caller built (tests); otherwise the app opens the configured one. */
  blobs?: BlobStore;
  /** Fastify logger options; `false` silences it. */
  logger?: FastifyServerOptions["logger"];
  /** Aborted when the shutdown grace period runs out (server.ts owns it). */
  drainDeadline?: AbortSignal;
}

/** Never log credentials, wherever a serializer might meet them. */
export const REDACTED_LOG_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  "headers.authorization",
  "authorization",
  "secret",
  "*.secret",
  "apiKey",
  "*.apiKey",
];

/**
 * Request ids unique across replicas and restarts without a random draw per request:
 * a random per-process prefix and a counter.
 */
function requestIdGenerator(): (req: { headers: Record<string, string | string[] | undefined> }) => string {
  const prefix = "req_" + randomBytes(8).toString("hex") + "_";
  let n = 0;
  return (req) => {
    // A caller's x-request-id is kept (and echoed) only when it is a sane token: it goes into
    // every log line and a response header.
    const given = req.headers["x-request-id"];
    return typeof given === "string" && REQUEST_ID.test(given) ? given : prefix + (++n).toString(36);
  };
}

/** Whether a caller's logger options serialize requests their own way (tests that log headers). */
function hasRequestSerializer(logger: AppOptions["logger"]): boolean {
  return (
    typeof logger === "object" &&
    logger !== null &&
    "serializers" in logger &&
    typeof logger.serializers?.req === "function"
  );
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * How long one plugin may take to start. Fastify's default (10 s) is shorter than what the store
 * legitimately waits: a replica queues for another's migrations up to the query timeout (15 s),
 * and the embedded store's first start runs initdb, which took over 10 s on a loaded 2-core
 * machine. Every wait inside has its own bound (connect and query timeouts); this one only turns
 * a start that hangs into an error instead of a silent wait.
 */
const PLUGIN_START_TIMEOUT_MS = 120_000;

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const { config } = opts;
  // Counted where the access line is written: no hook per response (metrics/request-counts.ts).
  const requests = new RequestCounts();
  const app = Fastify({
    logger: opts.logger ?? {
      level: config.logLevel,
      redact: { paths: REDACTED_LOG_PATHS, censor: "[redacted]" },
      stream: await logDestination(config.logFormat),
    },
    bodyLimit: config.jsonBodyLimit,
    pluginTimeout: PLUGIN_START_TIMEOUT_MS,
    childLoggerFactory: requestLoggerFactory,
    logController: new AccessLog(requests, { customRequestSerializer: hasRequestSerializer(opts.logger) }),
    requestIdHeader: false, // genReqId reads and checks it
    clientErrorHandler,
    requestTimeout: config.http.requestTimeoutMs,
    genReqId: requestIdGenerator(),
    // plugins/drain.ts answers requests that arrive while closing, in the envelope.
    return503OnClosing: false,
    // Errors raised before routing (a malformed URL escape, a bad content type) answer in the
    // OpenAI envelope too; the error handler is not reached for them.
    frameworkErrors: (error, request, anyReply) => {
      const reply = anyReply as FastifyReply;
      const apiError =
        error.code === "FST_ERR_BAD_URL"
          ? invalidParam("url", `The URL is malformed: ${request.url.split("?")[0]}`, "invalid_url")
          : toApiError(error, request.id, config.jsonBodyLimit);
      void sendApiError(reply, apiError);
    },
    // Above every route's own id limit, so a long id is judged by its route (404, 400), not the router.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.server.headersTimeout = Math.min(config.http.headersTimeoutMs, config.http.requestTimeoutMs);
  app.server.maxConnections = config.http.maxConnections;
  useDepthCheckedJson(app);
  app.setValidatorCompiler(validatorCompiler());
  app.decorate("config", config);
  app.decorate("drainDeadline", opts.drainDeadline ?? new AbortController().signal);
  app.addHook("onRequest", (request, reply, done) => {
    reply.header("x-request-id", request.id);
    // No response of ours may be sniffed into another type (a downloaded file above all).
    reply.header("x-content-type-options", "nosniff");
    // A NUL byte in the path or query can never name anything, and PostgreSQL refuses it in text.
    if (request.url.includes("%00"))
      return done(invalidParam("url", "The URL contains a NUL character (%00).", "invalid_value"));
    done();
  });

  // First, so its span covers every other hook; the SDK is loaded only when tracing is on.
  if (config.tracing) await app.register(tracingPlugin, { tracing: await startTracing(config.tracing) });
  await app.register(errorHandler);
  // Before any route: it collects every route's schemas as they are added.
  await app.register(openapiPlugin);
  await app.register(corsPlugin);
  await app.register(drainPlugin);
  await app.register(storePlugin, { db: opts.db });
  await app.register(apiKeysPlugin);
  // Before what it counts: the limits and the agents' upstream calls.
  await app.register(metricsPlugin, { requests });
  await app.register(redisPlugin);
  await app.register(usagePlugin);
  await app.register(keyLimitsPlugin);
  await app.register(filesPlugin, { blobs: opts.blobs });
  await app.register(agentsPlugin);
  await app.register(responsesPlugin);

  await app.register(healthRoutes);
  await app.register(organizationRoutes, { prefix: "/v1/organization" });
  await app.register(v1Routes, { prefix: "/v1" });
  await app.register(mcpSessionsPlugin);
  await app.register(mcpRoutes, { prefix: "/mcp" });
  return app;
}
