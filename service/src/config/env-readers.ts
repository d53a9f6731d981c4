/**
 * Generic readers of environment variables: each checks one variable, notes a problem naming it
 * when its value is not valid, and, while describeEnvironment runs, records what it accepts.
 */
import { z } from "zod";
import { parseBytes } from "../byte-size.js";
import { urlProblem } from "../url-problem.js";

export type Env = Record<string, string | undefined>;

/**
 * Problems found while reading one environment. loadConfig is synchronous, so the readers below
 * note into the list of the call under way; it throws them all at once at the end.
 */
let problems: string[] = [];

/** Notes a problem of the environment under way (a rule across variables, a file it cannot write). */
export function noteProblem(problem: string): void {
  problems.push(problem);
}

/** Runs `readAll` on a fresh list of problems; returns what it read and the problems it noted. */
export function readingProblems<T>(readAll: () => T): { value: T; problems: string[] } {
  problems = [];
  try {
    const value = readAll();
    return { value, problems };
  } finally {
    problems = [];
  }
}

/** One variable as the readers below declare it: what it accepts and what applies when it is unset. */
export interface EnvVariable {
  name: string;
  accepts: string;
  /** The value used when the variable is unset (undefined: none, the feature is off). */
  fallback: unknown;
  /** Its value may hold a credential, so no message repeats it. */
  secret: boolean;
}

/** Set while describeEnvironment runs: every reader records the variable it reads, once. */
let described: Map<string, EnvVariable> | undefined;

/** Every variable the readers read while `readAll` runs, once each, in the order first read; no problem is kept. */
export function declaredVariables(readAll: () => void): EnvVariable[] {
  described = new Map();
  try {
    readAll();
    return [...described.values()];
  } finally {
    described = undefined;
    problems = [];
  }
}

export function declare(name: string, accepts: string, fallback: unknown, secret: boolean): void {
  if (described && !described.has(name)) described.set(name, { name, accepts, fallback, secret });
}

/**
 * Reads `name` through `schema`: unset or empty gives `fallback`; a value the schema refuses is
 * noted as "NAME must be <accepts> (got '…')" (the value left out where it may hold a secret).
 */
export function read<T>(
  env: Env,
  name: string,
  schema: z.ZodType<T>,
  fallback: T,
  accepts: string,
  showValue = true,
): T {
  declare(name, accepts, fallback, !showValue);
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  problems.push(`${name} must be ${accepts}${showValue ? ` (got '${raw}')` : ""}`);
  return fallback;
}

const integerText = z.string().trim().regex(/^\d+$/).transform(Number);
const oneOf = (values: readonly string[]) => z.string().refine((v) => values.includes(v));

/** A byte-size variable, in the units nginx writes. */
export function bytes(env: Env, name: string, fallback: number, max?: number): number {
  const size = z.string().transform((v, ctx) => parseBytes(v) ?? (ctx.addIssue({ code: "custom" }), z.NEVER));
  if (max === undefined) return read(env, name, size, fallback, "a byte size such as 5242880, 5120k or 512m");
  const within = size.pipe(z.number().max(max));
  return read(env, name, within, fallback, `a byte size such as 5242880, 5120k or 512m, at most ${max / 1024 ** 2}m`);
}

/** A comma-separated list of origins (`https://app.example.com`), each checked to be one. */
export function origins(env: Env, name: string): string[] {
  const accepts = "a list of origins such as https://app.example.com, without a path or a trailing slash";
  declare(name, `a comma-separated ${accepts.slice(2)}`, [], false);
  const list = (env[name] ?? "")
    .split(",")
    .map((o) => o.trim())
    .filter(Boolean);
  const origin = z.string().refine((o) => URL.canParse(o) && new URL(o).origin === o);
  for (const o of list) read({ [name]: o }, name, origin, o, accepts);
  return list;
}

/** Free text; `keepEmpty` keeps an empty value instead of the fallback. */
export function text(
  env: Env,
  name: string,
  fallback: string,
  accepts: string,
  secret = false,
  keepEmpty = false,
): string {
  declare(name, accepts, fallback, secret);
  const raw = env[name];
  return raw === undefined || (raw === "" && !keepEmpty) ? fallback : raw;
}

/** Free text with no default: undefined when unset or empty. */
export function optionalText(env: Env, name: string, accepts: string, secret = false): string | undefined {
  return text(env, name, "", accepts, secret) || undefined;
}

export function int(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const accepts = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
  return read(env, name, integerText.pipe(z.number().int().min(min).max(max)), fallback, accepts);
}

/** An integer with no default: undefined (off) when unset. */
export function optionalInt(env: Env, name: string, min: number, max: number): number | undefined {
  const schema = integerText.pipe(z.number().int().min(min).max(max));
  return read<number | undefined>(env, name, schema, undefined, `an integer from ${min} to ${max}`);
}

export function positiveSeconds(env: Env, name: string, fallback: number): number {
  const seconds = z
    .string()
    .trim()
    .regex(/^\d*\.?\d+$/)
    .transform(Number)
    .pipe(z.number().positive());
  return read(env, name, seconds, fallback, "a positive number of seconds");
}

/** One of a fixed set of words (compared as written, or lower-cased with `caseless`). */
export function choice(env: Env, name: string, values: readonly string[], fallback: string, caseless = false): string {
  const schema = caseless
    ? z
        .string()
        .transform((v) => v.toLowerCase())
        .pipe(oneOf(values))
    : oneOf(values);
  return read(env, name, schema, fallback, `one of ${values.join(", ")}`);
}

/**
 * A URL with one of `protocols` (`https`); what is wrong is said first cause first (url-problem.ts).
 * `secret` leaves the value out of the message (it may carry a password).
 */
export function url(env: Env, name: string, protocols: string[], secret = false): string | undefined {
  const starts = protocols.map((p) => `${p}://`);
  declare(name, `a URL starting with ${starts.slice(0, -1).join(", ")} or ${starts.at(-1)}`, undefined, secret);
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  const problem = urlProblem(raw, protocols);
  if (problem === undefined) return raw;
  problems.push(`${name} ${problem}${secret ? "" : ` (got '${raw}')`}`);
  return undefined;
}

export function boolean(env: Env, name: string, fallback: boolean): boolean {
  return read(
    env,
    name,
    z
      .string()
      .transform((v) => v.toLowerCase())
      .pipe(z.enum(["true", "false"]))
      .transform((v) => v === "true"),
    fallback,
    "true or false",
  );
}
