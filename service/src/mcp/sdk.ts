/**
 * The MCP SDK and the session server built on it, loaded on the first /mcp request that needs
 * them: a replica that serves no MCP client never holds them (~10 MB of RSS). Types stay static.
 */
import type { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { createMcpServer } from "./server.js";

export interface McpSdk {
  StreamableHTTPServerTransport: typeof StreamableHTTPServerTransport;
  SSEServerTransport: typeof SSEServerTransport;
  isInitializeRequest: typeof isInitializeRequest;
  createMcpServer: typeof createMcpServer;
}

let loading: Promise<McpSdk> | undefined;

export function mcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import("@modelcontextprotocol/sdk/server/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/server/sse.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("./server.js"),
  ]).then(([streamable, sse, types, server]) => ({
    StreamableHTTPServerTransport: streamable.StreamableHTTPServerTransport,
    SSEServerTransport: sse.SSEServerTransport,
    isInitializeRequest: types.isInitializeRequest,
    createMcpServer: server.createMcpServer,
  }));
  // A failed load (a broken install) is not remembered: the next request tries again.
  loading.catch(() => (loading = undefined));
  return loading;
}
