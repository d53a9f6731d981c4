import { describe, expect, it } from "vitest";
import { AgentsFileError } from "../../../service/src/domain/agents/agent-spec.js";
import { builtInAgents, loadAgentSpecs, parseAgentsText } from "../../../service/src/domain/agents/agents-file.js";
import { ConfiguredAgents } from "../../../service/src/domain/agents/registry.js";
import { agentsFileOf } from "../../helpers/app.js";

const problems = (text: string, source = "agents.yaml") => {
  try {
    parseAgentsText(text, source);
  } catch (err) {
    expect(err).toBeInstanceOf(AgentsFileError);
    return (err as AgentsFileError).problems;
  }
  throw new Error("expected the file to be refused");
};

describe("the agents file", () => {
  it("reads YAML and JSON alike", () => {
    const yaml = parseAgentsText(
      "agents:\n  - id: s\n    kind: synthetic\n    tokens: 4\n    interval_ms: 10\n",
      "a.yaml",
    );
    const json = parseAgentsText(
      JSON.stringify({ agents: [{ id: "s", kind: "synthetic", tokens: 4, interval_ms: 10 }] }),
      "a.json",
    );
    expect(yaml).toEqual(json);
    expect(yaml).toEqual([{ id: "s", kind: "synthetic", tokens: 4, interval_ms: 10 }]);
  });

  it("names the agent and the field of every problem, all at once", () => {
    const text = [
      "agents:",
      "  - id: bot",
      "    kind: llm",
      "    system_promt: hi",
      "  - id: load",
      "    kind: synthetic",
      "    tokens: -1",
      "  - id: bot",
      "    kind: files",
      "  - kind: robot",
      "    id: r",
    ].join("\n");
    expect(problems(text)).toEqual([
      "agents[0] (id 'bot'): field 'model' is required",
      "agents[0] (id 'bot'): unknown field 'system_promt'",
      "agents[1] (id 'load'): field 'tokens': too small: expected number to be >=1",
      "agents[2] (id 'bot'): id 'bot' is already used by agents[0]",
      "agents[3] (id 'r'): field 'kind' must be one of llm, files, synthetic",
    ]);
  });

  it("says what a field of the wrong type accepts, and that a missing one is required", () => {
    const text = JSON.stringify({
      agents: [
        { id: "up", kind: "llm", model: "m", responses: "yes", embeddings: 3 },
        { id: "fast", kind: "llm", model: null },
        { id: "docs", kind: "files", aliases: "docs-v1" },
        { kind: "synthetic" },
        "an agent",
      ],
    });
    expect(problems(text, "a.json")).toEqual([
      "agents[0] (id 'up'): field 'embeddings' must be a boolean",
      "agents[0] (id 'up'): field 'responses' must be a boolean",
      "agents[1] (id 'fast'): field 'model' must be a string",
      "agents[2] (id 'docs'): field 'aliases' must be an array",
      "agents[3]: field 'id' is required",
      "agents[3]: field 'tokens' is required",
      "agents[4]: the agent must be an object",
    ]);
  });

  it("says what is wrong with the document itself", () => {
    expect(problems("agents: [", "a.yaml")[0]).toMatch(/^not valid YAML/);
    expect(problems("{", "a.json")[0]).toMatch(/^not valid JSON/);
    expect(problems("models: []")).toEqual(["expected a top-level 'agents' list (or a list of agents)"]);
    expect(() => loadAgentSpecs("/nonexistent/agents.yaml", undefined)).toThrow(
      /AGENTS_FILE \/nonexistent\/agents.yaml is invalid:\n {2}- cannot be read: there is no such file \(ENOENT\)/,
    );
  });

  it("offers chat:latest and a labelled synthetic agent without a file", () => {
    const offline = builtInAgents(undefined);
    expect(offline.map((a) => [a.id, a.kind])).toEqual([
      ["chat:latest", "files"],
      ["synthetic-20", "synthetic"],
    ]);
    expect(offline[1].description).toMatch(/synthetic/i);
    expect(builtInAgents("gpt-x")[0]).toMatchObject({ id: "chat:latest", kind: "llm", model: "gpt-x" });
  });

  it("refuses llm agents without an upstream and env references that are not set", () => {
    const build = (spec: object, env = {}) =>
      new ConfiguredAgents({ prefix: "p", specs: parseAgentsText(JSON.stringify([spec]), "a.json"), llm: {}, env });
    expect(() => build({ id: "a", kind: "llm", model: "m" })).toThrow(/agent 'a': kind llm needs an upstream/);
    expect(() => build({ id: "a", kind: "llm", model: "m", base_url_env: "A_URL" })).toThrow(
      /base_url_env names A_URL, which is not set/,
    );
    expect(() => build({ id: "a", kind: "llm", model: "m", base_url: "http://u/v1", api_key_env: "A_KEY" })).toThrow(
      /api_key_env names A_KEY/,
    );
    const ok = build(
      { id: "a", kind: "llm", model: "m", base_url_env: "A_URL", api_key_env: "A_KEY" },
      { A_URL: "http://u/v1", A_KEY: "k" },
    );
    expect(ok.list("any").map((a) => a.modelId)).toEqual(["p/a"]);
    void ok.close();
  });

  it("refuses fallbacks that are unknown, not llm agents, the agent itself, repeated or in a cycle, all at once", () => {
    const llm = (id: string, fallbacks?: string[]) => ({
      id,
      kind: "llm",
      model: "m",
      ...(fallbacks && { fallbacks }),
    });
    const text = JSON.stringify([
      llm("a", ["b", "nope", "docs", "a", "b"]),
      llm("b", ["c"]),
      llm("c", ["a"]),
      { id: "docs", kind: "files" },
    ]);
    expect(problems(text, "a.json")).toEqual([
      "agent 'a': fallback 'nope' is not an agent id",
      "agent 'a': fallback 'docs' is a files agent; fallbacks must be llm agents",
      "agent 'a': fallback 'a' is the agent itself",
      "agent 'a': fallback 'b' is listed twice",
      "agents' fallbacks form a cycle: a → b → c → a",
    ]);
  });

  it("checks a fallback to the built-in chat:latest once the built-ins are known: offline, it is not an llm agent", () => {
    const file = agentsFileOf([
      { id: "a", kind: "llm", model: "m", base_url: "http://u/v1", fallbacks: ["chat:latest"] },
    ]);
    const build = (upstreamModel?: string) =>
      new ConfiguredAgents({
        prefix: "p",
        specs: loadAgentSpecs(file, upstreamModel),
        llm: upstreamModel ? { baseUrl: "http://u/v1" } : {},
        env: {},
      });
    expect(() => build()).toThrow(/agent 'a': fallback 'chat:latest' is a files agent; fallbacks must be llm agents/);
    const online = build("gpt-x");
    expect(online.list("any").map((a) => a.id)).toEqual(["chat:latest", "a"]);
    void online.close();
  });

  it("fills in retries with their defaults and refuses retries out of range", () => {
    const [spec] = parseAgentsText(
      JSON.stringify([{ id: "a", kind: "llm", model: "m", retries: { attempts: 3 }, fallbacks: ["chat:latest"] }]),
      "a.json",
    );
    expect(spec).toMatchObject({
      retries: { attempts: 3, backoff_ms: 250, max_backoff_ms: 2000 },
      fallbacks: ["chat:latest"],
    });
    expect(
      problems(
        JSON.stringify([{ id: "a", kind: "llm", model: "m", retries: { attempts: 0, jitter: true } }]),
        "a.json",
      ),
    ).toEqual([
      "agents[0] (id 'a'): field 'retries.attempts': too small: expected number to be >=1",
      "agents[0] (id 'a'): unknown field 'retries.jitter'",
    ]);
  });

  it("takes responses: true on llm agents only, as a boolean", () => {
    const [spec] = parseAgentsText(JSON.stringify([{ id: "a", kind: "llm", model: "m", responses: true }]), "a.json");
    expect(spec).toMatchObject({ responses: true });
    const found = problems(
      JSON.stringify([
        { id: "a", kind: "llm", model: "m", responses: "yes" },
        { id: "f", kind: "files", responses: true },
      ]),
      "a.json",
    );
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/^agents\[0\] \(id 'a'\): field 'responses'/);
    expect(found[1]).toBe("agents[1] (id 'f'): unknown field 'responses'");
  });

  it("scopes agents listed for projects to those projects", async () => {
    const registry = new ConfiguredAgents({
      prefix: "p",
      specs: parseAgentsText(
        JSON.stringify([
          { id: "g", kind: "files" },
          { id: "x", kind: "files", projects: ["acme"] },
        ]),
        "a.json",
      ),
      llm: {},
      env: {},
    });
    expect(registry.list("acme").map((a) => a.id)).toEqual(["g", "x"]);
    expect(registry.list("other").map((a) => a.id)).toEqual(["g"]);
    expect(registry.resolve("other", "p/x")).toBeUndefined();
    expect(registry.resolve("acme", "p/x")?.kind).toBe("files");
    expect(registry.resolve("acme", "x")).toBeUndefined();
    await registry.close();
  });
});

describe("the example agents file", () => {
  it("is valid", () => {
    const specs = loadAgentSpecs(new URL("../../../service/agents.example.yaml", import.meta.url).pathname, undefined);
    expect(specs.map((s) => `${s.id}:${s.kind}`)).toEqual([
      "chat:latest:llm",
      "support:llm",
      "embed:llm",
      "docs:files",
      "synthetic-slow:synthetic",
    ]);
  });
});
