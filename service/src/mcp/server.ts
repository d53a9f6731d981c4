/** One MCP server per session, with the tools of the session key's project. */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { McpServerDeps } from "./deps.js";
import { SERVICE_VERSION } from "../version.js";
import { registerAgentTools } from "./tools/ask-agent.js";
import { FILE_TOOL_NAMES, registerFileTools } from "./tools/files.js";

export const SERVER_NAME = "agentport";
export const SERVER_VERSION = SERVICE_VERSION;

export function createMcpServer(deps: McpServerDeps): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      instructions:
        "Tools of one project: each ask_* tool asks one of the project's agents and returns its answer; " +
        "list_files, read_file, search_files and upload_text_file work on the project's uploaded files.",
    },
  );
  registerFileTools(server, deps);
  registerAgentTools(server, deps, FILE_TOOL_NAMES);
  return server;
}
