import { describe, expect, it } from "vitest";
import { filesAgent } from "../../../service/src/domain/agents/files-agent.js";
import { MAX_QUESTION_CHARS } from "../../../service/src/domain/files/text-index.js";
import type { AgentContext, AgentEvent } from "../../../service/src/domain/agents/types.js";

/** The files agent trims a question before any work on it: a 5 MB question reaches the search as its first few Ki. */
describe("the files agent bounds its work on a huge question", () => {
  const info = { id: "files", modelId: "agentport/files", kind: "files" as const, description: "files", created: 0 };
  const ctx = {
    projectId: "p",
    signal: new AbortController().signal,
    log: { info() {}, warn() {} },
  } as unknown as AgentContext;

  it.each([
    ["a string", (q: string) => q],
    [
      "text parts",
      (q: string) => [
        { type: "text", text: q.slice(0, q.length / 2) },
        { type: "text", text: q.slice(q.length / 2) },
      ],
    ],
  ])("as %s: the search reads at most MAX_QUESTION_CHARS of it, and the answer is still given", async (_, content) => {
    const asked: string[] = [];
    const agent = filesAgent(info, { kind: "files" } as never, {
      fileSearch: async (_project, query) => {
        asked.push(query);
        return [];
      },
    });
    const question = "invoice ".repeat((5 * 1024 * 1024) / 8);
    const events: AgentEvent[] = [];
    for await (const e of agent.run(
      { messages: [{ role: "user", content: content(question) as never }], stream: false } as never,
      ctx,
    ))
      events.push(e);
    expect(asked).toHaveLength(1);
    expect(asked[0].length).toBeLessThanOrEqual(MAX_QUESTION_CHARS);
    expect(asked[0].startsWith("invoice invoice")).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "finish" });
  });
});
