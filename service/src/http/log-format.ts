/**
 * How log lines look: JSON lines (batched, http/log-destination.ts) for pods, pipes and files, and
 * one readable line per entry for a person at a terminal — stdout a TTY and LOG_FORMAT not `json`
 * (LOG_FORMAT=pretty forces it, uncoloured, anywhere). pino-pretty is imported only then, so a
 * deployment never loads it; its prettyFactory formats each line synchronously as pino writes it
 * (its stream form pipes through a Transform, which can lose the last lines at exit).
 */
import sonicBoom from "sonic-boom";
import type { LogFormat } from "../config.js";
import { batchedStdout, type LogDestination } from "./log-destination.js";

/** Whether lines are prettified: `pretty`, or `auto` on a terminal. */
export function prettyLogs(format: LogFormat, isTTY: boolean): boolean {
  return format === "pretty" || (format === "auto" && isTTY);
}

export async function logDestination(
  format: LogFormat,
  isTTY: boolean = process.stdout.isTTY === true,
): Promise<LogDestination> {
  if (!prettyLogs(format, isTTY)) return batchedStdout();
  // pino-pretty's types do not resolve its named export under NodeNext: its shape, as documented.
  const { prettyFactory } = (await import("pino-pretty")) as unknown as {
    prettyFactory: (options: Record<string, unknown>) => (line: string) => string;
  };
  const prettify = prettyFactory({
    colorize: isTTY,
    translateTime: "SYS:HH:MM:ss.l",
    ignore: "pid,hostname",
    singleLine: true,
  });
  // Synchronous: a person reads it as it happens, and nothing is held back at exit.
  const out = new sonicBoom.SonicBoom({ fd: 1, sync: true });
  out.on("error", () => {}); // a closed terminal: the lines are dropped, the service goes on
  return {
    write: (line) => out.write(prettify(line)),
    flush: (callback) => callback(),
  };
}
