/**
 * Where the service's log lines go: stdout, written in batches. pino's default destination makes
 * one synchronous write(2) per line — ~28 µs for the access line of every request, a fifth of the
 * models list's CPU. Here lines gather up to LOG_BATCH_BYTES and go out in one asynchronous write;
 * a timer flushes at least every second, so a quiet server's lines are not held back, and pino
 * flushes synchronously on exit (a crash included). Only a SIGKILL (an OOM kill) can lose the
 * last second's lines.
 */
import pino from "pino";

const LOG_BATCH_BYTES = 4096;
const LOG_FLUSH_MS = 1000;

export function batchedStdout(): pino.DestinationStream {
  const destination = pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES });
  setInterval(() => destination.flush(), LOG_FLUSH_MS).unref();
  return destination;
}
