/**
 * Reads and discards what is left of a request body before an early answer (413). Answering and
 * closing while the client is still sending makes the kernel reset the connection, and the client
 * sees EPIPE/ECONNRESET instead of the status (the openai SDK then retries a request that can
 * never succeed). Bounded in bytes and time: past either bound the answer goes out anyway.
 */
import type { IncomingMessage } from "node:http";

export const DISCARD_MAX_BYTES = 64 * 1024 * 1024;
export const DISCARD_MAX_MS = 10_000;

export function discardBody(req: IncomingMessage, maxBytes = DISCARD_MAX_BYTES, maxMs = DISCARD_MAX_MS): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const finish = () => {
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", finish);
      req.off("error", finish);
      req.off("close", finish);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) {
        req.pause();
        finish();
      }
    };
    const timer = setTimeout(finish, maxMs);
    req.on("data", onData);
    req.once("end", finish);
    req.once("error", finish);
    req.once("close", finish);
    req.resume();
  });
}

/**
 * Sends an error answer; a 413 given before the body was read waits for the rest of the body
 * (discarded) and closes the connection after.
 */
export function sendAfterBody(
  request: { raw: IncomingMessage },
  reply: { header(k: string, v: string): unknown },
  status: number,
  send: () => unknown,
): void {
  if (status !== 413 || request.raw.complete) {
    send();
    return;
  }
  reply.header("connection", "close");
  void discardBody(request.raw).then(send);
}
