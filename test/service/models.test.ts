import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { buildTestApp, type TestApp } from "../helpers/app.js";
import { STORE_KINDS } from "../helpers/store.js";
import { listen, openaiClient } from "../helpers/openai-client.js";

describe.each(STORE_KINDS)("models (%s)", (kind) => {
  let t: TestApp;
  let baseURL: string;
  let client: OpenAI;
  beforeAll(async () => {
    const agentsFile = join(tmpdir(), `agents-${kind}-${process.pid}.yaml`);
    writeFileSync(
      agentsFile,
      [
        "agents:",
        "  - id: synthetic-5",
        "    kind: synthetic",
        "    tokens: 5",
        "  - id: acme-only",
        "    kind: files",
        "    projects: [acme]",
      ].join("\n"),
    );
    t = await buildTestApp(kind, { AGENTS_FILE: agentsFile, MODEL_PREFIX: "agentport" });
    baseURL = await listen(t.app);
    client = openaiClient(baseURL, (await t.createKey()).secret);
  });
  afterAll(() => t.close());

  it("lists the project's agents as OpenAI model objects", async () => {
    const page = await client.models.list();
    const ids = page.data.map((m) => m.id);
    expect(ids).toEqual(["agentport/chat:latest", "agentport/synthetic-5"]);
    for (const m of page.data) {
      expect(Object.keys(m).sort()).toEqual(["created", "id", "object", "owned_by"]);
      expect(m.object).toBe("model");
      expect(Number.isInteger(m.created)).toBe(true);
      expect(m.owned_by).toBe("agentport");
    }
  });

  it("shows project-scoped agents to their project only", async () => {
    const acme = openaiClient(baseURL, (await t.createKey("acme")).secret);
    const ids = (await acme.models.list()).data.map((m) => m.id);
    expect(ids).toContain("agentport/acme-only");
    await expect(client.models.retrieve("agentport/acme-only")).rejects.toMatchObject({ status: 404 });
  });

  it("retrieves a model by an id holding a slash and a colon, encoded or not", async () => {
    const model = await client.models.retrieve("agentport/chat:latest");
    expect(model).toEqual({
      id: "agentport/chat:latest",
      object: "model",
      created: expect.any(Number),
      owned_by: "agentport",
    });
    const raw = await fetch(`${baseURL}/models/agentport/chat:latest`, {
      headers: { authorization: `Bearer ${client.apiKey}` },
    });
    expect(raw.status).toBe(200);
    expect((await raw.json()).id).toBe("agentport/chat:latest");
  });

  it("answers 404 model_not_found for an unknown model", async () => {
    const err = await client.models.retrieve("agentport/nope").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    const res = await fetch(`${baseURL}/models/agentport%2Fnope`, {
      headers: { authorization: `Bearer ${client.apiKey}` },
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: {
        message: "The model 'agentport/nope' does not exist or you do not have access to it.",
        type: "invalid_request_error",
        param: "model",
        code: "model_not_found",
      },
    });
  });
});
