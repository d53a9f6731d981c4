/** Parsers of one flag's value: a number, a whole number, a byte size; each error names the flag. */
import { parseBytes } from "../../infra/stack/bytes.js";

/** A number of at least `min`; `fallback` when the flag is absent. */
export function num(raw: string | undefined, name: string, fallback: number, min = 0): number {
  if (raw === undefined) return fallback;
  // Number("") and Number(" ") are 0: a blank value is not a number.
  const n = raw.trim() === "" ? NaN : Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`--${name} must be a number >= ${min} (got '${raw}')`);
  return n;
}

/** A whole number of at least `min` (1 unless said). */
export function int(raw: string | undefined, name: string, fallback: number, min = 1): number {
  const n = num(raw, name, fallback, min);
  if (!Number.isInteger(n)) throw new Error(`--${name} must be a whole number (got '${raw}')`);
  return n;
}

/** A byte size in nginx's units (`512m`); undefined when the flag is absent. */
export function bytes(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = parseBytes(raw);
  if (n === undefined) throw new Error(`--${name} must be a byte size such as 5242880, 5120k or 512m (got '${raw}')`);
  return n;
}
