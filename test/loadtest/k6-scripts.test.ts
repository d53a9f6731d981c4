import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { checkEvents, checkStream, eventsOf } from "../../loadtest/k6/lib/sse.js";

const K6_DIR = join(import.meta.dirname, "../../loadtest/k6");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const scripts = readdirSync(K6_DIR).filter((f) => f.endsWith(".ts"));

describe("k6 scripts", () => {
  it("type-check against @types/k6 with their own tsconfig", async () => {
    const run = promisify(execFile)(process.execPath, [tsc, "-p", join(K6_DIR, "tsconfig.json")]);
    await expect(run.catch((e: { stdout: string }) => Promise.reject(new Error(e.stdout)))).resolves.toBeDefined();
  }, 120_000);

  it("each declares options with named scenarios, an explicit exec, and thresholds", () => {
    expect(scripts.sort()).toEqual([
      "body-limits.ts",
      "chat-stream.ts",
      "files.ts",
      "idle-timeout.ts",
      "revocation.ts",
    ]);
    for (const file of scripts) {
      const text = readFileSync(join(K6_DIR, file), "utf8");
      expect(text, file).toMatch(/export const options: Options = \{/);
      const execs = [...text.matchAll(/exec: "(\w+)"/g)].map((m) => m[1]);
      expect(execs.length, file).toBeGreaterThan(0);
      for (const exec of execs)
        expect(text, `${file} exports ${exec}`).toMatch(new RegExp(`export function ${exec}\\(`));
      expect(text, file).toMatch(/http_req_failed/);
      expect(text, file).toMatch(/checks: \[/);
    }
  });
});

/** What the service sends for a stream of three one-word tokens, with a heartbeat and the usage chunk. */
const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const usage = `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", model: "m", choices: [], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } })}\n\n`;
const body =
  chunk({ role: "assistant", content: "" }) +
  ": keep-alive\n\n" +
  chunk({ content: "Lorem" }) +
  chunk({ content: " ipsum" }) +
  chunk({ content: " dolor" }) +
  chunk({}, "stop") +
  usage +
  "data: [DONE]\n\n";

describe("the k6 stream check (the harness's rules, in k6's runtime)", () => {
  it("accepts a complete stream, counting content chunks, heartbeats and the usage chunk's tokens", () => {
    const timed = eventsOf(body).map((e, i) => ({ ...e, at: 1000 + i * 10 }));
    const check = checkEvents(timed, 3);
    expect(check).toMatchObject({
      ok: true,
      error: "",
      id: "chatcmpl-1",
      contentChunks: 3,
      heartbeats: 1,
      done: true,
      completionTokens: 3,
    });
    // Arrival of the first content event (TTFT), not of the role chunk or the heartbeat.
    expect(check.contentTimes).toEqual([1020, 1030, 1040]);
    expect(check.contentChars).toEqual([5, 6, 6]);
  });

  it("refuses truncated, interleaved, unfinished and short streams", () => {
    expect(checkStream(body.replace("data: [DONE]\n\n", "")).error).toBe("no [DONE] (truncated)");
    expect(checkStream(body.replace(/"chatcmpl-1"(?=[^]*"Lorem")/, '"chatcmpl-2"')).error).toMatch(/another id/);
    expect(checkStream(body.replace('"stop"', "null")).error).toMatch(/no finish_reason|empty choices/);
    expect(checkStream(body, 4).error).toBe("3 content chunks, expected 4");
    expect(checkStream(body.replace('"role":"assistant",', "")).error).toBe("first chunk has no role");
  });
});
