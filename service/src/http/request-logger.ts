/**
 * Each request's logger (`request.log`), made on first use. Fastify makes a pino child per
 * request to bind its reqId; most requests never log a line of their own (their access line is
 * written without it, http/access-log.ts), and making the child cost more than the key check.
 * This stands in for it and makes the real child the first time a line is logged.
 */
import type { FastifyBaseLogger } from "fastify";
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString } from "pino";

// pino's log methods are overloaded; a stand-in passes whatever it was given straight through.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type LogArgs = any[];
const call = (fn: (...args: LogArgs) => void, logger: FastifyBaseLogger, args: LogArgs) => fn.apply(logger, args);

export class RequestLogger implements FastifyBaseLogger {
  private readonly parent: FastifyBaseLogger;
  private readonly ownBindings: Bindings;
  private readonly options: ChildLoggerOptions;
  private made?: FastifyBaseLogger;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.parent = parent;
    this.ownBindings = bindings;
    this.options = options;
  }

  private get real(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.ownBindings, this.options));
  }

  get level(): LevelWithSilentOrString {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }
  set level(level: LevelWithSilentOrString) {
    this.real.level = level;
  }

  // Prototype methods, not arrow fields: nothing is allocated per request but the object itself.
  fatal(...args: LogArgs): void {
    call(this.real.fatal, this.real, args);
  }
  error(...args: LogArgs): void {
    call(this.real.error, this.real, args);
  }
  warn(...args: LogArgs): void {
    call(this.real.warn, this.real, args);
  }
  info(...args: LogArgs): void {
    call(this.real.info, this.real, args);
  }
  debug(...args: LogArgs): void {
    call(this.real.debug, this.real, args);
  }
  trace(...args: LogArgs): void {
    call(this.real.trace, this.real, args);
  }
  silent(): void {}

  /** pino's check, answered without making the child unless this request has its own level. */
  isLevelEnabled(level: string): boolean {
    const logger = (this.options.level === undefined ? (this.made ?? this.parent) : this.real) as FastifyBaseLogger & {
      isLevelEnabled(level: string): boolean;
    };
    return logger.isLevelEnabled(level);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: a RequestLogger in place of the child it would make. */
export function requestLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new RequestLogger(logger, bindings, options);
}
