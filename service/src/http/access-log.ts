/**
 * One access line per request, written when it ends: method, URL, status and time together, the
 * way a gateway's access log reads. Fastify's default writes two lines (one on arrival, one at the
 * end); each costs a serialization and a write. Fastify's own extension point for its request log
 * lines; the request metrics are counted here too, for the same reason.
 *
 * The line has a fixed shape, so it is serialized by one compiled fast-json-stringify function
 * and written to the logger's destination directly: the same JSON pino writes (level, time, the
 * root bindings, reqId, Fastify's req and res fields, msg), at a sixth of the cost. pino's general
 * path (serializers, then redaction of every `*.secret` on every line) was the largest share of
 * the models list's CPU time after the socket write. pino's redaction holds here by construction:
 * the compiled serializer writes only the fields ACCESS_LINE_SCHEMA lists (fast-json-stringify
 * drops the rest), and that list is checked at load for secret-shaped names, so a field added to
 * it later that could carry a credential stops the service from starting. No header is in the
 * line, and no API takes a key in the URL. A failed request's line, and any app whose caller
 * chose its own request serializer, still go through pino. `upstream` names the agent whose
 * upstream answered an llm agent's run (an id from the agents file, never a URL).
 */
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from "fastify";
import fastJsonStringify from "fast-json-stringify";
import pino from "pino";
import type { RequestCounts } from "../metrics/request-counts.js";

const COMPLETED = "request completed";

const text = { type: "string" } as const;
const integer = { type: "integer" } as const;
/** The line after pino's head (level, time and the root bindings), from reqId to msg: the only fields it can carry. */
export const ACCESS_LINE_SCHEMA = {
  type: "object",
  properties: {
    reqId: text,
    req: {
      type: "object",
      properties: { method: text, url: text, version: text, host: text, remoteAddress: text, remotePort: integer },
    },
    res: { type: "object", properties: { statusCode: integer } },
    responseTime: { type: "number" },
    keyId: text,
    projectId: text,
    upstream: text,
    msg: text,
  },
} as const;

/** Names a credential travels under (the leaves of the logger's redact paths, and their kin). */
const SECRET_SHAPED = /authori[sz]ation|api[-_]?key|password|passwd|token|cookie|secret|credential|bearer/i;

interface ObjectSchema {
  type?: string;
  properties?: Record<string, ObjectSchema>;
}

/** Every property path of `schema` whose name is secret-shaped, as "req.headers.authorization". */
export function secretShapedFields(schema: ObjectSchema, prefix = ""): string[] {
  return Object.entries(schema.properties ?? {}).flatMap(([name, child]) => {
    const path = prefix + name;
    return [...(SECRET_SHAPED.test(name) ? [path] : []), ...secretShapedFields(child, `${path}.`)];
  });
}

const leaks = secretShapedFields(ACCESS_LINE_SCHEMA);
if (leaks.length)
  throw new Error(`The access line bypasses the logger's redaction, so it must not carry ${leaks.join(", ")}`);
const serializeFields = fastJsonStringify(ACCESS_LINE_SCHEMA);

interface Destination {
  write(line: string): unknown;
}

/** The root logger's destination and bindings, when its lines can be written here (a pino logger). */
interface Writer {
  destination: Destination;
  /** pino's serialized root bindings, `,"pid":1,"hostname":"h"` by default. */
  bindings: string;
}

export interface AccessLogOptions {
  /** The caller set its own `req` serializer: every access line goes through pino to honour it. */
  customRequestSerializer?: boolean;
}

export class AccessLog extends LogController {
  private readonly requests: RequestCounts;
  private readonly viaPino: boolean;
  /** Undefined until the first line: null when the logger is not one whose lines can be written here. */
  private writer?: Writer | null;

  constructor(requests: RequestCounts, options: AccessLogOptions = {}) {
    super();
    this.requests = requests;
    this.viaPino = options.customRequestSerializer === true;
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    this.requests.count(request, reply);
    // The API key's id and project, when the request had one (other lines of the request join by reqId).
    const auth = request.auth as FastifyRequest["auth"] | undefined;
    if (error) {
      reply.log.error(
        {
          req: request,
          res: reply,
          responseTime: reply.elapsedTime,
          keyId: auth?.keyId,
          projectId: auth?.projectId,
          upstream: request.upstreamAgent,
          err: error,
        },
        "request errored",
      );
      return;
    }
    if (this.writer === undefined) this.writer = this.viaPino ? null : writerOf(request.server.log);
    const writer = this.writer;
    if (!writer) {
      reply.log.info(
        {
          req: request,
          res: reply,
          responseTime: reply.elapsedTime,
          keyId: auth?.keyId,
          projectId: auth?.projectId,
          upstream: request.upstreamAgent,
        },
        COMPLETED,
      );
      return;
    }
    if (!(reply.log as unknown as pino.Logger).isLevelEnabled("info")) return;
    const raw = request.raw;
    const fields = serializeFields({
      reqId: request.id,
      req: {
        method: request.method,
        url: request.url,
        version: raw.headers["accept-version"],
        host: request.host,
        remoteAddress: request.ip,
        remotePort: raw.socket?.remotePort,
      },
      res: { statusCode: reply.statusCode },
      responseTime: reply.elapsedTime,
      keyId: auth?.keyId,
      projectId: auth?.projectId,
      upstream: request.upstreamAgent,
      msg: COMPLETED,
    });
    writer.destination.write(`{"level":30,"time":${Date.now()}${writer.bindings},${fields.slice(1)}\n`);
  }
}

/** Null for a logger that is not pino's (Fastify's silent one, or one a caller brought). */
function writerOf(base: FastifyBaseLogger): Writer | null {
  const logger = base as unknown as Record<symbol, unknown>;
  const destination = logger[pino.symbols.streamSym] as Destination | undefined;
  const bindings = logger[pino.symbols.chindingsSym];
  if (typeof destination?.write !== "function" || typeof bindings !== "string") return null;
  return { destination, bindings };
}
