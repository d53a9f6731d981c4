/**
 * A Streamable HTTP client that leaves a POST before its answers were written cancels what it
 * asked for: the SDK's transport only drops the stream, and the tool calls (an agent run, with
 * its upstream request) would run on for nobody. Each request of the POST gets the cancellation
 * the protocol defines (`notifications/cancelled`), delivered to the session's server as if the
 * client had sent it, which aborts the handler's signal.
 */
import type { ServerResponse } from "node:http";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

const requestIds = (message: unknown): Array<string | number> =>
  (Array.isArray(message) ? message : [message]).flatMap((m) => {
    const id = (m as { id?: unknown; method?: unknown } | null)?.id;
    return (typeof id === "string" || typeof id === "number") && typeof (m as { method?: unknown }).method === "string"
      ? [id]
      : [];
  });

export function cancelOnDisconnect(res: ServerResponse, transport: Transport, message: unknown): void {
  const ids = requestIds(message);
  if (ids.length === 0) return;
  res.once("close", () => {
    if (res.writableFinished) return;
    for (const requestId of ids) {
      transport.onmessage?.({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId, reason: "The client disconnected." },
      });
    }
  });
}
