/**
 * What leaves the store when a query fails: the SQLSTATE and a short statement name, never the
 * SQL text or its parameters (they may hold a secret's hash or a user's input). A connection
 * fault (refused, reset, timed out, server shutting down) is `StoreUnavailableError`: the
 * request gets a 503 to retry, not a 500.
 */

/** SQLSTATE classes and codes that mean "the server is not reachable or not serving now". */
const UNAVAILABLE_SQLSTATE = /^(08|57P0[123]|53300|53400)/;
const UNAVAILABLE_ERRNO = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
/** node-postgres reports its own timeouts and lost connections as plain Errors with these texts. */
const UNAVAILABLE_MESSAGE =
  /timeout|Connection terminated|connection error|not queryable|Cannot use a pool after calling end/i;

export class StoreError extends Error {
  /** SQLSTATE (e.g. 23505) or the socket error code. */
  readonly code: string | undefined;
  /** e.g. "DELETE api_keys": which statement failed, without its text. */
  readonly statement: string;
  constructor(message: string, code: string | undefined, statement: string) {
    super(message);
    this.name = "StoreError";
    this.code = code;
    this.statement = statement;
  }
}

export class StoreUnavailableError extends StoreError {
  constructor(code: string | undefined, statement: string) {
    super(`the metadata store is unavailable (${code ?? "no answer"} on ${statement})`, code, statement);
    this.name = "StoreUnavailableError";
  }
}

/** "SELECT … FROM api_keys WHERE …" → "SELECT api_keys". */
export function statementName(sql: string): string {
  const verb = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? "SQL";
  const table = /\b(?:FROM|INTO|UPDATE|TABLE|JOIN)\s+([\w."]+)/i.exec(sql)?.[1];
  return table ? `${verb} ${table.replaceAll('"', "")}` : verb;
}

export function isUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === "string" ? e.code : "";
  return (
    UNAVAILABLE_SQLSTATE.test(code) ||
    UNAVAILABLE_ERRNO.has(code) ||
    (!code && typeof e?.message === "string" && UNAVAILABLE_MESSAGE.test(e.message))
  );
}

/** The sanitized error for a failed `sql`. */
export function storeError(err: unknown, sql: string): StoreError {
  if (err instanceof StoreError) return err;
  const statement = statementName(sql);
  const code = typeof (err as { code?: unknown })?.code === "string" ? (err as { code: string }).code : undefined;
  if (isUnavailable(err)) return new StoreUnavailableError(code, statement);
  return new StoreError(`query failed (${code ?? "unknown"} on ${statement})`, code, statement);
}
