/**
 * Where the service's log lines go: stdout, written in batches. pino's default destination makes
 * one synchronous write(2) per line, which holds the event loop while stdout is slow. Here lines
 * gather up to LOG_BATCH_BYTES and go out in one asynchronous write, flushed at least every
 * LOG_FLUSH_MS (a quiet server's lines are not held back) and synchronously at exit, a crash
 * included. Only a SIGKILL (an OOM kill) can lose the last second's lines.
 *
 * sonic-boom 5 directly rather than pino.destination (sonic-boom 4): 4's synchronous flush retries
 * a failed write forever, a broken pipe included, so a process whose stdout reader had gone (a
 * closed terminal, a dead parent) never finished exiting. 5 gives up on such errors, and bounds its
 * retries of a stdout that is only full.
 *
 * Lines are handed to it as bytes (its buffer mode): in text mode it measures the UTF-8 length of
 * the whole pending batch again on every line, up to 4 KiB re-read per line.
 */
import sonicBoom, { type SonicBoomOpts } from "sonic-boom";

// A CommonJS module whose named exports Node cannot see: the class is a property of its default.
const { SonicBoom } = sonicBoom;

const LOG_BATCH_BYTES = 4096;
const LOG_FLUSH_MS = 1000;
/** Retries of a full stdout (100 ms apart) before a write gives up: ~5 s at most at exit. */
const MAX_WRITE_RETRIES = 50;

/** What pino writes its lines to; `flush` is what `logger.flush()` calls (after the startup lines). */
export interface LogDestination {
  write(line: string): boolean;
  flush(callback: (err?: Error) => void): void;
}

export function batchedStdout(): LogDestination {
  const options: SonicBoomOpts & { maxWriteRetries: number } = {
    fd: 1,
    sync: false,
    contentMode: "buffer",
    minLength: LOG_BATCH_BYTES,
    periodicFlush: LOG_FLUSH_MS,
    maxWriteRetries: MAX_WRITE_RETRIES,
  };
  const destination = new SonicBoom(options);
  // A reader that has gone cannot be written to again: the lines are dropped, the service goes on.
  destination.on("error", () => {});
  process.on("exit", () => {
    try {
      destination.flushSync();
    } catch {
      // Nothing reads stdout any more: what is left cannot be delivered.
    }
  });
  return {
    write: (line) => destination.write(Buffer.from(line) as unknown as string),
    flush: (callback) => destination.flush(callback),
  };
}
