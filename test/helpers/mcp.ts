/** MCP test helpers: the app on a loopback port and official SDK clients connected to it. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { TestApp } from "./app.js";

/** Listens on 127.0.0.1 (random port) and makes that the public URL, as a deployment would. */
export async function listen(t: TestApp): Promise<string> {
  const address = await t.app.listen({ host: "127.0.0.1", port: 0 });
  t.config.publicUrl = address;
  return address;
}

export const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` });

export async function streamableClient(url: string, headers: Record<string, string>) {
  const client = new Client({ name: "agentport-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  return { client, transport };
}

export async function sseClient(url: string, headers: Record<string, string>) {
  const client = new Client({ name: "agentport-test-legacy", version: "1.0.0" });
  const transport = new SSEClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  return { client, transport };
}

/** The text of a tool result's first content block. */
export function firstText(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content[0]?.type === "text" ? (content[0].text ?? "") : "";
}

/** The JSON-RPC message of a POST reply, whether the server answered with JSON or an SSE stream. */
export async function rpcBody(
  res: Response,
): Promise<{ result?: any; error?: { code: number; message: string; data?: any }; id?: unknown }> {
  const text = await res.text();
  if (!(res.headers.get("content-type") ?? "").includes("text/event-stream")) return JSON.parse(text);
  const data = text
    .split("\n")
    .filter((l) => l.startsWith("data:"))
    .map((l) => l.slice(5).trim())
    .filter(Boolean);
  return JSON.parse(data.at(-1)!);
}

export const ACCEPT_BOTH = "application/json, text/event-stream";

export const initializeMessage = (protocolVersion = "2025-06-18", id: number | string = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw-test", version: "1.0.0" } },
});
