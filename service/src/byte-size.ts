/** Byte sizes as nginx and the service write them ("5120k", "5120KiB", "512m", "1g", "5242880"). */
const BYTES = /^\s*(\d+)\s*([kmg]?)(i?b)?\s*$/i;

/** Parses a byte size into bytes; undefined when it is not one. The one parser for the service, the stack and the load test. */
export function parseBytes(value: string | number): number | undefined {
  if (typeof value === "number") return Number.isInteger(value) && value >= 0 ? value : undefined;
  const m = BYTES.exec(value);
  if (!m) return undefined;
  const unit = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2].toLowerCase() as "" | "k" | "m" | "g"];
  return Number(m[1]) * unit;
}
