/**
 * The store with a client span per query, named by its statement (statement-name.ts), never its
 * SQL text or values. Used only when tracing is on: the plain store is untouched otherwise.
 */
import { SpanKind, SpanStatusCode, type Tracer } from "@opentelemetry/api";
import type { Db, Queryable, QueryResult } from "../store/db.js";
import { statementName } from "./statement-name.js";
import { tracer as activeTracer } from "./tracer.js";

function traced<T>(
  tracer: Tracer,
  system: string,
  sql: string,
  run: () => Promise<QueryResult<T>>,
): Promise<QueryResult<T>> {
  const name = statementName(sql);
  return tracer.startActiveSpan(
    name,
    { kind: SpanKind.CLIENT, attributes: { "db.system.name": system, "db.query.summary": name } },
    (span) =>
      run().then(
        (result) => {
          span.setAttribute("db.response.returned_rows", result.rowCount);
          span.end();
          return result;
        },
        (err: unknown) => {
          span.setStatus({ code: SpanStatusCode.ERROR, message: (err as { code?: string }).code ?? "query failed" });
          span.end();
          throw err;
        },
      ),
  );
}

function tracedQueryable(tracer: Tracer, system: string, q: Queryable): Queryable["query"] {
  return (sql, params) => traced(tracer, system, sql, () => q.query(sql, params));
}

/** `db` itself when tracing is off. */
export function tracedDb(db: Db): Db {
  const tracer = activeTracer;
  if (!tracer) return db;
  const system = "postgresql";
  return {
    kind: db.kind,
    query: tracedQueryable(tracer, system, db),
    transaction: (fn, opts) => db.transaction((tx) => fn({ query: tracedQueryable(tracer, system, tx) }), opts),
    listen: (channel, onMessage, onReset) => db.listen(channel, onMessage, onReset),
    notificationsLive: () => db.notificationsLive(),
    notify: (channel, payload) => db.notify(channel, payload),
    close: () => db.close(),
  };
}
