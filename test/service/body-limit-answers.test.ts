import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerProcess, TSX, type ServerProcess } from "../helpers/server-process.js";

const run = promisify(execFile);

/**
 * A body over the limit is refused from its declared length, before it is read. The client must
 * still read the 413 every time — not a reset while it is still sending — whatever the timing.
 * The server runs in its own process, as deployed: in one process the race does not show.
 */
describe("bodies over the JSON limit are answered 413, never reset", () => {
  let server: ServerProcess;
  let secret: string;
  const ATTEMPTS = 20;
  const over = () => Buffer.alloc(8 * 1024 * 1024, 0x61); // the limit below is 1 MiB

  beforeAll(async () => {
    const env = { DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-413-")), JSON_BODY_LIMIT: "1m", LOG_LEVEL: "info" };
    server = await startServerProcess(env);
    secret = JSON.parse(
      (
        await run(TSX, ["service/src/cli/keys.ts", "create", "--name", "t", "--json"], {
          env: { ...process.env, ...env },
        })
      ).stdout,
    ).secret;
  }, 120_000);
  afterAll(() => {
    server?.child.kill("SIGKILL");
  });

  // The API answers in the OpenAI envelope; MCP in a JSON-RPC error (its own clients' shape).
  for (const [path, expected] of [
    ["/v1/chat/completions", "413 request_too_large"],
    ["/mcp", "413 -32000"],
  ]) {
    it(`${path}: ${ATTEMPTS} raw attempts all read the 413 (${expected})`, async () => {
      const outcomes: string[] = [];
      for (let i = 0; i < ATTEMPTS; i++) {
        try {
          const res = await fetch(server.url + path, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
              authorization: `Bearer ${secret}`,
            },
            body: over(),
            signal: AbortSignal.timeout(20_000),
          });
          const body = (await res.json()) as { error?: { code?: string | number } };
          outcomes.push(`${res.status} ${body.error?.code}`);
        } catch (err) {
          outcomes.push(`failed: ${(err as Error).cause ?? err}`);
        }
      }
      expect(outcomes).toEqual(Array(ATTEMPTS).fill(expected));
    }, 120_000);
  }

  it("the official openai client gets an APIError 413, not a connection error and a retry", async () => {
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: secret, maxRetries: 0, timeout: 20_000 });
    for (let i = 0; i < 5; i++) {
      const err = await client.chat.completions
        .create({ model: "agentport/synthetic-20", messages: [{ role: "user", content: "a".repeat(8 * 1024 * 1024) }] })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(413);
    }
  }, 60_000);
});
