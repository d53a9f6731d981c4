/**
 * The key-creation answer's `mcp_configs`: each JSON variant, read the way its client reads it,
 * connects with the official MCP client and lists the tools; the command lines carry the key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../helpers/app.js";
import { listen, streamableClient } from "../../helpers/mcp.js";

type Remote = { type?: string; url: string; headers: Record<string, string> };

describe("MCP configs in the key-creation answer", () => {
  let t: TestApp;
  let body: { secret: string; mcp_configs: Record<string, any> };
  beforeAll(async () => {
    t = await buildTestApp();
    const base = await listen(t);
    const res = await fetch(`${base}/v1/organization/projects/default/api_keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${await t.memberToken("owner")}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "mcp configs" }),
    });
    expect(res.status).toBe(201);
    body = await res.json();
  });
  afterAll(() => t.close());

  const cases: Array<[string, (c: any) => Remote, string | undefined]> = [
    ["generic", (c) => c.mcpServers.agentport, undefined],
    ["cursor", (c) => c.mcpServers.agentport, undefined],
    ["claude-code", (c) => c.mcpServers.agentport, "http"],
    ["vscode", (c) => c.servers.agentport, "http"],
  ];
  it.each(cases)("the %s config connects as-is and lists the tools", async (client, entry, type) => {
    const server = entry(body.mcp_configs[client]);
    expect(server.type).toBe(type);
    const { client: mcp } = await streamableClient(server.url, server.headers);
    try {
      const { tools } = await mcp.listTools();
      expect(tools.map((x) => x.name)).toContain("list_files");
    } finally {
      await mcp.close();
    }
  });

  it("gives Claude Desktop the mcp-remote bridge and the Inspector a command line, both with the key", () => {
    const desktop = body.mcp_configs["claude-desktop"].mcpServers.agentport;
    expect(desktop.command).toBe("npx");
    expect(desktop.args).toEqual([
      "-y",
      "mcp-remote",
      `${t.config.publicUrl}/mcp`,
      "--header",
      `Authorization: Bearer ${body.secret}`,
    ]);
    expect(body.mcp_configs.inspector).toContain(
      `--cli ${t.config.publicUrl}/mcp --transport http --header "Authorization: Bearer ${body.secret}"`,
    );
  });
});
