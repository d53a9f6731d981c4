/**
 * Model aliases: a client configured for another provider (`gpt-4o-mini`) reaches the agent that
 * lists the name, and every answer names the model it asked for.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentsFileError } from "../../../service/src/domain/agents/agent-spec.js";
import { parseAgentsText } from "../../../service/src/domain/agents/agents-file.js";
import { ConfiguredAgents } from "../../../service/src/domain/agents/registry.js";
import { startLlmTestApp, type LlmTestApp } from "../../helpers/llm-app.js";

const problems = (agents: object[], prefix = "agentport") => {
  try {
    const specs = parseAgentsText(JSON.stringify({ agents }), "agents.json");
    new ConfiguredAgents({ prefix, specs, llm: {}, env: {} });
  } catch (err) {
    expect(err).toBeInstanceOf(AgentsFileError);
    return (err as AgentsFileError).problems;
  }
  throw new Error("expected the agents to be refused");
};

describe("model aliases", () => {
  let app: LlmTestApp;
  beforeAll(async () => {
    app = await startLlmTestApp([
      { id: "helper", kind: "llm", model: "echo", aliases: ["gpt-4o-mini", "openai/gpt-4o-mini"] },
      { id: "load", kind: "synthetic", tokens: 3, aliases: ["gpt-3.5-turbo"], projects: ["acme"] },
    ]);
  });
  afterAll(() => app?.close());

  it("reaches the agent through an alias, and the JSON answer names the alias", async () => {
    const answer = await app.client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "hello via alias" }],
    });
    expect(answer.model).toBe("gpt-4o-mini");
    expect(answer.choices[0].message.content).toContain("hello via alias"); // the echo upstream answered
    expect(app.stub.requests.at(-1)!.body.model).toBe("echo"); // the agent's upstream model, not the alias
  });

  it("names the alias in every streamed chunk", async () => {
    const stream = await app.client.chat.completions.create({
      model: "openai/gpt-4o-mini",
      messages: [{ role: "user", content: "streamed" }],
      stream: true,
    });
    const models = new Set<string>();
    let text = "";
    for await (const chunk of stream) {
      models.add(chunk.model);
      text += chunk.choices[0]?.delta?.content ?? "";
    }
    expect([...models]).toEqual(["openai/gpt-4o-mini"]);
    expect(text).toContain("streamed");
  });

  it("lists aliases as models, and retrieves one by its name", async () => {
    const ids = (await app.client.models.list()).data.map((m) => m.id);
    expect(ids).toEqual(["agentport/chat:latest", "agentport/helper", "gpt-4o-mini", "openai/gpt-4o-mini"]);
    expect(await app.client.models.retrieve("gpt-4o-mini")).toMatchObject({
      id: "gpt-4o-mini",
      object: "model",
      owned_by: "agentport",
    });
  });

  it("keeps an agent's projects for its aliases", async () => {
    await expect(
      app.client.chat.completions.create({ model: "gpt-3.5-turbo", messages: [{ role: "user", content: "hi" }] }),
    ).rejects.toMatchObject({ status: 404 });
    const { OpenAI } = await import("openai");
    const acme = new OpenAI({ baseURL: app.baseURL, apiKey: (await app.t.createKey("acme")).secret });
    expect((await acme.models.list()).data.map((m) => m.id)).toContain("gpt-3.5-turbo");
    expect(
      (await acme.chat.completions.create({ model: "gpt-3.5-turbo", messages: [{ role: "user", content: "hi" }] }))
        .model,
    ).toBe("gpt-3.5-turbo");
  });

  it("refuses an alias used twice, or one that is another agent's model id", () => {
    expect(
      problems([
        { id: "a", kind: "synthetic", tokens: 1, aliases: ["gpt-4o", "gpt-4o"] },
        { id: "b", kind: "synthetic", tokens: 1, aliases: ["gpt-4o"] },
        { id: "c", kind: "synthetic", tokens: 1, aliases: ["has space"] },
      ]),
    ).toEqual([
      "agents[0] (id 'a'): alias 'gpt-4o' is already used by this agent",
      "agents[1] (id 'b'): alias 'gpt-4o' is already used by agents[0]",
      "agents[2] (id 'c'): field 'aliases.0': must start with a letter or digit and use only letters, digits, '.', '_', ':', '/' or '-'",
    ]);
    expect(
      problems([
        { id: "a", kind: "synthetic", tokens: 1 },
        { id: "b", kind: "synthetic", tokens: 1, aliases: ["agentport/a"] },
      ]),
    ).toEqual(["agent 'b': alias 'agentport/a' is the model id of agent 'a'"]);
  });
});
