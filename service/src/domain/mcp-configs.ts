/**
 * The MCP server entry for this key in the shapes clients document, keyed by client, so each can
 * be pasted as-is: the generic and Cursor `mcpServers` (url + headers), Claude Code's
 * `"type": "http"`, VS Code's `servers`, Claude Desktop (whose config file takes only local
 * commands: the `mcp-remote` bridge), and the MCP Inspector's command line.
 */
export const MCP_CLIENTS = ["generic", "claude-code", "claude-desktop", "vscode", "cursor", "inspector"] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

export function mcpConfigs(serverName: string, publicUrl: string, secret: string): Record<McpClient, unknown> {
  const url = `${publicUrl}/mcp`;
  const authorization = `Bearer ${secret}`;
  const remote = { url, headers: { Authorization: authorization } };
  return {
    generic: { mcpServers: { [serverName]: remote } },
    "claude-code": { mcpServers: { [serverName]: { type: "http", ...remote } } },
    "claude-desktop": {
      mcpServers: {
        [serverName]: {
          command: "npx",
          args: ["-y", "mcp-remote", url, "--header", `Authorization: ${authorization}`],
        },
      },
    },
    vscode: { servers: { [serverName]: { type: "http", ...remote } } },
    cursor: { mcpServers: { [serverName]: remote } },
    inspector: `npx @modelcontextprotocol/inspector --cli ${url} --transport http --header "Authorization: ${authorization}" --method tools/list`,
  };
}
