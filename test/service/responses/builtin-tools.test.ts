/**
 * A `responses: true` agent forwards a built-in tool (run by the upstream, on the deployment's
 * account, unmetered here) only when the agents file lists it in the agent's `builtin_tools`:
 * anything else is a 400 naming the tool, and the upstream is never called. Client tools pass.
 * The field is checked at start. On the PostgreSQL server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateAgents } from "../../../service/src/domain/agents/agent-spec.js";
import { agentsFileOf, buildTestApp, type TestApp } from "../../helpers/app.js";
import { listen } from "../../helpers/openai-client.js";
import { startUpstreamStub, type UpstreamStub } from "../../helpers/upstream-stub.js";

describe("built-in tools of Responses agents", () => {
  let t: TestApp;
  let stub: UpstreamStub;
  let base: string;
  let secret: string;
  beforeAll(async () => {
    stub = await startUpstreamStub();
    t = await buildTestApp("postgres", {
      AGENTS_FILE: agentsFileOf([
        { id: "bare", kind: "llm", model: "responder", responses: true },
        { id: "searcher", kind: "llm", model: "responder", responses: true, builtin_tools: ["web_search"] },
      ]),
      LLM_BASE_URL: stub.url,
    });
    base = await listen(t.app);
    secret = (await t.createKey()).secret;
  });
  afterAll(async () => {
    await t.close();
    await stub.close();
  });

  const create = async (model: string, tools: object[]) => {
    const res = await fetch(`${base}/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: `agentport/${model}`, input: "hi", tools, store: false }),
      signal: AbortSignal.timeout(20_000),
    });
    return { status: res.status, json: await res.json() };
  };

  it("refuses each undeclared built-in tool with a 400 naming it, before any upstream call", async () => {
    const hostile: Array<[object, string]> = [
      [{ type: "file_search", vector_store_ids: ["vs_someone_elses"] }, "file_search"],
      [{ type: "code_interpreter", container: { type: "auto" } }, "code_interpreter"],
      [{ type: "mcp", server_label: "x", server_url: "https://attacker.example/mcp" }, "mcp"],
      [{ type: "web_search" }, "web_search"],
      [{ type: "image_generation" }, "image_generation"],
      [{ type: "teleport" }, "teleport"],
    ];
    for (const [tool, name] of hostile) {
      const { status, json } = await create("bare", [{ type: "function", name: "f", parameters: {} }, tool]);
      expect(status, name).toBe(400);
      expect(json.error).toMatchObject({
        code: "tool_not_allowed",
        param: "tools[1].type",
        type: "invalid_request_error",
      });
      expect(json.error.message).toContain(`Tool '${name}' is not allowed for agent 'bare'`);
    }
    const { status } = await create("searcher", [{ type: "file_search", vector_store_ids: ["vs_1"] }]);
    expect(status).toBe(400);
    expect(stub.requests).toHaveLength(0);
  });

  it("forwards the built-in tools the agent declares, and client tools to any agent", async () => {
    expect((await create("searcher", [{ type: "web_search" }])).status).toBe(200);
    expect(stub.requests.at(-1)!.body.tools).toEqual([{ type: "web_search" }]);
    expect((await create("bare", [{ type: "function", name: "f", parameters: {} }])).status).toBe(200);
    expect(stub.requests).toHaveLength(2);
  });

  it("the agents file's builtin_tools is checked at start", () => {
    const problems = (agents: object[]) => {
      try {
        validateAgents({ agents }, "agents.json");
        return [];
      } catch (err) {
        return (err as { problems: string[] }).problems;
      }
    };
    expect(problems([{ id: "a", kind: "llm", model: "m", builtin_tools: ["web_search"] }])).toEqual([
      "agents[0] (id 'a'): 'builtin_tools' needs 'responses: true' (only an upstream's own Responses API runs them)",
    ]);
    expect(problems([{ id: "a", kind: "llm", model: "m", responses: true, builtin_tools: ["telepathy"] }])).toEqual([
      expect.stringMatching(/^agents\[0\] \(id 'a'\): field 'builtin_tools\.0'/),
    ]);
    expect(
      problems([
        { id: "a", kind: "llm", model: "m", responses: true, builtin_tools: ["mcp"], fallbacks: ["b"] },
        { id: "b", kind: "llm", model: "m", responses: true },
      ]),
    ).toEqual(["agent 'a': fallback 'b' does not allow the built-in tool(s) mcp that 'a' allows"]);
  });
});
