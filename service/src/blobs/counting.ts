/** A pass-through that counts bytes, for backends whose SDK does not report the size written. */
import { Transform, type Readable } from "node:stream";

/**
 * Pipes `body` through a counter. An error of the body, or an abort of `signal`, errors the
 * counter: SDKs waiting for the next chunk of a stalled body only notice it that way.
 */
export function counted(body: Readable, signal?: AbortSignal): { stream: Transform; bytes: () => number } {
  let n = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      n += chunk.length;
      done(null, chunk);
    },
  });
  body.on("error", (err) => stream.destroy(err));
  if (signal) {
    const onAbort = () => stream.destroy(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    stream.once("close", () => signal.removeEventListener("abort", onAbort));
  }
  body.pipe(stream);
  return { stream, bytes: () => n };
}
