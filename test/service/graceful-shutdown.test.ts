import { execFile } from "node:child_process";
import { connect } from "node:net";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startServerProcess, TSX, type ServerProcess } from "../helpers/server-process.js";

const run = promisify(execFile);

interface Server extends ServerProcess {
  secret: string;
}

/** The real entry point in a child process, on the embedded store, with one slow synthetic agent. */
async function startServer(graceSeconds: number): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), "agentport-shutdown-"));
  const agentsFile = join(dataDir, "agents.json");
  writeFileSync(
    agentsFile,
    JSON.stringify({ agents: [{ id: "slow", kind: "synthetic", tokens: 8, interval_ms: 250 }] }),
  );
  const env = {
    DATA_DIR: dataDir,
    AGENTS_FILE: agentsFile,
    SHUTDOWN_GRACE_SECONDS: String(graceSeconds),
    HEARTBEAT_SECONDS: "0.2",
  };
  const key = JSON.parse(
    (
      await run(TSX, ["service/src/cli/keys.ts", "create", "--name", "t", "--json"], {
        env: { ...process.env, ...env },
      })
    ).stdout,
  );
  return { ...(await startServerProcess(env)), secret: key.secret };
}

/** Opens a stream and resolves once its first content chunk has arrived. */
async function openStream(s: Server) {
  const res = await fetch(`${s.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${s.secret}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "agentport/slow", stream: true, messages: [{ role: "user", content: "go" }] }),
  });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  let text = "";
  while (!text.includes('"content":"')) text += new TextDecoder().decode((await reader.read()).value);
  const rest = (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return text;
      text += new TextDecoder().decode(value);
    }
  })();
  return rest;
}

describe("graceful shutdown (SIGTERM)", () => {
  let server: Server | undefined;
  afterEach(() => {
    server?.child.kill("SIGKILL");
  });

  it("stops accepting, lets an open stream finish, then exits 0", { timeout: 120_000 }, async () => {
    server = await startServer(20);
    const whole = openStream(server);
    await new Promise((r) => setTimeout(r, 300));
    server.child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 200));
    // New work is refused while the stream drains: 503 or a closed listener.
    const late = await fetch(`${server.url}/health`).then(
      (r) => r.status,
      () => "refused",
    );
    expect([503, "refused"]).toContain(late);
    const text = await whole;
    expect(text).toContain('"finish_reason":"stop"');
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    // fetch keeps its connection alive once the stream is done: that must not hold the exit until the 20 s grace.
    const code = await Promise.race([server.exited, new Promise((r) => setTimeout(() => r("still running"), 15_000))]);
    expect(code).toBe(0);
  });

  it(
    "ends a stream that outlives the grace period with an error event, and still exits",
    { timeout: 120_000 },
    async () => {
      server = await startServer(0.5);
      const whole = openStream(server);
      await new Promise((r) => setTimeout(r, 100));
      server.child.kill("SIGTERM");
      const text = await whole;
      expect(text).not.toContain('"finish_reason":"stop"');
      expect(text).toMatch(/data: \{"error":\{"message":"[^"]*shut/);
      expect(await server.exited).not.toBeNull();
    },
  );

  it(
    "exits as soon as the last stream ends, though clients keep connections alive; a request on one gets the enveloped 503",
    { timeout: 120_000 },
    async () => {
      server = await startServer(60);
      const { port } = new URL(server.url);
      // One kept-alive connection: a stream, and a second request pipelined behind it.
      const socket = connect(Number(port), "127.0.0.1");
      let raw = "";
      socket.on("data", (d) => (raw += d));
      const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
      const body = JSON.stringify({
        model: "agentport/slow",
        stream: true,
        messages: [{ role: "user", content: "go" }],
      });
      socket.write(
        `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.secret}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      // And a client that keeps its connection open, idle, once its own stream is done.
      const idle = connect(Number(port), "127.0.0.1");
      let idleRaw = "";
      idle.on("data", (d) => (idleRaw += d));
      idle.on("error", () => {});
      idle.write(
        `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.secret}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      await vi.waitFor(() => expect(raw + idleRaw).toMatch(/"content":"[\s\S]*"content":"/), {
        timeout: 10_000,
        interval: 20,
      });
      await vi.waitFor(() => expect(raw).toContain('"content":"'), { timeout: 10_000, interval: 20 });
      const signalled = Date.now();
      server.child.kill("SIGTERM");
      await new Promise((r) => setTimeout(r, 300));
      socket.write(`GET /health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.secret}\r\n\r\n`);

      // The grace period is 60 s: the process must be gone right after the 2 s stream, not then.
      const code = await Promise.race([
        server.exited,
        new Promise((r) => setTimeout(() => r("still running"), 20_000)),
      ]);
      expect(code).toBe(0);
      expect(Date.now() - signalled).toBeLessThan(20_000);
      await Promise.race([closed, new Promise((r) => setTimeout(r, 5000))]);

      const [stream, late] = raw.split(/(?=HTTP\/1\.1 503)/);
      expect(stream).toContain('"finish_reason":"stop"');
      expect(stream).toContain("data: [DONE]");
      expect(late).toMatch(/^HTTP\/1\.1 503/);
      expect(late.toLowerCase()).toContain("connection: close");
      const envelope = JSON.parse(
        late
          .slice(late.indexOf("\r\n\r\n") + 4)
          .replace(/^[0-9a-f]+\r\n/, "")
          .split("\r\n")[0],
      );
      expect(envelope.error).toMatchObject({ type: "server_error", code: "service_unavailable" });
      expect(idleRaw).toContain("data: [DONE]");
      idle.destroy();
    },
  );
});
