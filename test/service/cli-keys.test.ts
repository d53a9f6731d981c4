import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { buildTestApp } from "../helpers/app.js";
import { openTestStore } from "../helpers/store.js";
import { startServerProcess } from "../helpers/server-process.js";
import { buildApp } from "../../service/src/app.js";
import { loadConfig } from "../../service/src/config.js";
import { openStore } from "../../service/src/store/open.js";
import { listen, openaiClient } from "../helpers/openai-client.js";

const run = promisify(execFile);
const TSX = join("node_modules", ".bin", "tsx");
const CLI = join("service", "src", "cli", "keys.ts");

async function keys(env: Record<string, string>, ...args: string[]) {
  // PORT 1 is never our server: direct mode unless AGENTPORT_URL points at one.
  const { stdout, stderr } = await run(TSX, [CLI, ...args], {
    env: { ...process.env, PORT: "1", LOG_LEVEL: "silent", ...env },
  });
  return { stdout, stderr };
}

describe("keys CLI", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanups) await c();
  });

  it(
    "creates (--json: one object, nothing else), lists and deletes on the embedded store",
    { timeout: 90_000 },
    async () => {
      const env = { DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-cli-")) };
      const created = await keys(env, "create", "--name", "bootstrap", "--json");
      const key = JSON.parse(created.stdout);
      expect(Object.keys(key).sort()).toEqual([
        "base_url",
        "budget",
        "created_at",
        "expires_at",
        "id",
        "mcp_configs",
        "mcp_json",
        "name",
        "rate_limits",
        "secret",
      ]);
      expect(key.rate_limits).toEqual({ rpm: null, tpm: null });
      expect(key.secret).toMatch(/^ap-/);
      expect(key.mcp_json.mcpServers.agentport.headers.Authorization).toBe(`Bearer ${key.secret}`);

      const listed = JSON.parse((await keys(env, "list", "--json")).stdout);
      expect(listed.data.map((k: { id: string }) => k.id)).toEqual([key.id]);
      expect(JSON.stringify(listed)).not.toContain(key.secret);

      await keys(env, "delete", key.id);
      expect(JSON.parse((await keys(env, "list", "--json")).stdout).data).toEqual([]);

      const expiresAt = Math.floor(Date.now() / 1000) + 86_400;
      const temp = JSON.parse(
        (await keys(env, "create", "--name", "temp", "--expires-at", String(expiresAt), "--json")).stdout,
      );
      expect(temp.expires_at).toBe(expiresAt);
      expect(JSON.parse((await keys(env, "list", "--json")).stdout).data[0].expires_at).toBe(expiresAt);

      const limited = JSON.parse(
        (await keys(env, "create", "--name", "limited", "--rpm", "5", "--tpm", "1000", "--json")).stdout,
      );
      expect(limited.rate_limits).toEqual({ rpm: 5, tpm: 1000 });
      const listed2 = JSON.parse((await keys(env, "list", "--json")).stdout).data as {
        id: string;
        rate_limits: unknown;
      }[];
      expect(listed2.find((k) => k.id === limited.id)?.rate_limits).toEqual({ rpm: 5, tpm: 1000 });
    },
  );

  it("works on the PostgreSQL server with --project, and a key it deletes is refused by a running app", async () => {
    const store = await openTestStore("postgres");
    cleanups.push(() => store.drop());
    const env = { DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-cli-")), DATABASE_URL: store.url! };
    const key = JSON.parse((await keys(env, "create", "--name", "svc", "--project", "p1", "--json")).stdout);

    // The app under test shares the server database through a store connection of its own.
    const db = await openStore({ databaseUrl: store.url });
    const app = await buildApp({ config: loadConfig({ ...env, LOG_LEVEL: "silent" }), db, logger: false });
    cleanups.push(async () => {
      await app.close();
      await db.close();
    });
    const auth = { authorization: `Bearer ${key.secret}` };
    expect((await app.inject({ method: "GET", url: "/v1/none", headers: auth })).statusCode).toBe(404);
    await keys(env, "delete", key.id, "--project", "p1");
    expect((await app.inject({ method: "GET", url: "/v1/none", headers: auth })).statusCode).toBe(401);
  });

  it(
    "says a key's limits as they apply: its own, the deployment's, or unlimited (never 'default')",
    { timeout: 120_000 },
    async () => {
      const store = await openTestStore("postgres");
      cleanups.push(() => store.drop());
      const env = { DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-cli-")), DATABASE_URL: store.url! };
      const plain = (await keys(env, "create", "--name", "plain")).stdout;
      expect(plain).toContain("Limits per minute: unlimited requests, unlimited tokens\n");
      const mixed = (await keys({ ...env, RATE_LIMIT_RPM: "600" }, "create", "--name", "mixed", "--tpm", "5000"))
        .stdout;
      expect(mixed).toContain("Limits per minute: 600 requests (RATE_LIMIT_RPM, for every key), 5000 tokens\n");
      const limitLines = (plain + mixed).split("\n").filter((l) => l.includes("Limits per minute"));
      expect(limitLines.join("\n")).not.toContain("default");
    },
  );

  it("goes through the running server when one is up (the embedded store is held by it)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "agentport-cli-"));
    const t = await buildTestApp("pglite", { DATA_DIR: dataDir });
    cleanups.push(() => t.close());
    const address = await t.app.listen({ host: "127.0.0.1", port: 0 });
    const env = { DATA_DIR: dataDir, JWT_SECRET: t.config.jwtSecret, AGENTPORT_URL: address };
    const key = JSON.parse((await keys(env, "create", "--name", "via http", "--json")).stdout);
    // The key is in the server's store: the server accepts it.
    const res = await fetch(`${address}/v1/none`, { headers: { authorization: `Bearer ${key.secret}` } });
    expect(res.status).toBe(404);
    expect((await keys(env, "list")).stdout).toContain("via http");
  });

  it(
    "finds a running server through its data dir whatever PORT says, and never opens the store beside it",
    { timeout: 120_000 },
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "agentport-cli-"));
      const server = await startServerProcess({ DATA_DIR: dataDir });
      cleanups.push(async () => {
        server.child.kill("SIGTERM");
        await server.exited;
      });
      // PORT 1 is not where the server listens: the record in the data dir is what leads the CLI there.
      const key = JSON.parse((await keys({ DATA_DIR: dataDir }, "create", "--name", "found", "--json")).stdout);
      const res = await fetch(`${server.url}/v1/none`, { headers: { authorization: `Bearer ${key.secret}` } });
      expect(res.status).toBe(404); // the server knows the key: it was created in its store

      // A second server on the same data dir refuses to start.
      const second = await startServerProcess({ DATA_DIR: dataDir }).catch((e: Error) => e);
      expect(second).toBeInstanceOf(Error);
      expect((second as Error).message).toContain("server exited early");
    },
  );

  it("prints usage per key and model through the running server, as a table and as JSON", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "agentport-cli-"));
    const t = await buildTestApp("pglite", { DATA_DIR: dataDir });
    cleanups.push(() => t.close());
    const baseURL = await listen(t.app);
    const env = { DATA_DIR: dataDir, JWT_SECRET: t.config.jwtSecret, AGENTPORT_URL: baseURL.replace(/\/v1$/, "") };
    const alpha = JSON.parse((await keys(env, "create", "--name", "alpha", "--json")).stdout);
    const beta = JSON.parse((await keys(env, "create", "--name", "beta", "--json")).stdout);
    const ask = (secret: string, model: string) =>
      openaiClient(baseURL, secret).chat.completions.create({ model, messages: [{ role: "user", content: "Hello" }] });
    const answers = [
      await ask(alpha.secret, "agentport/synthetic-20"),
      await ask(alpha.secret, "agentport/synthetic-20"),
      await ask(alpha.secret, "agentport/chat:latest"),
      await ask(beta.secret, "agentport/synthetic-20"),
    ];
    const sum = (i: number[], f: "prompt_tokens" | "completion_tokens") =>
      i.reduce((n, j) => n + answers[j].usage![f], 0);

    const json = JSON.parse((await keys(env, "usage", "--json")).stdout);
    expect(json.data).toEqual([
      {
        api_key_id: alpha.id,
        name: "alpha",
        model: "agentport/chat:latest",
        num_model_requests: 1,
        input_tokens: sum([2], "prompt_tokens"),
        output_tokens: sum([2], "completion_tokens"),
        cost_usd: 0,
      },
      {
        api_key_id: alpha.id,
        name: "alpha",
        model: "agentport/synthetic-20",
        num_model_requests: 2,
        input_tokens: sum([0, 1], "prompt_tokens"),
        output_tokens: sum([0, 1], "completion_tokens"),
        cost_usd: 0,
      },
      {
        api_key_id: beta.id,
        name: "beta",
        model: "agentport/synthetic-20",
        num_model_requests: 1,
        input_tokens: sum([3], "prompt_tokens"),
        output_tokens: sum([3], "completion_tokens"),
        cost_usd: 0,
      },
    ]);
    const text = (await keys(env, "usage", "--days", "1")).stdout;
    expect(text).toMatch(/KEY\s+NAME\s+MODEL\s+REQUESTS\s+INPUT TOKENS\s+OUTPUT TOKENS/);
    expect(text).toMatch(
      new RegExp(
        `${alpha.id}\\s+alpha\\s+agentport/synthetic-20\\s+2\\s+${sum([0, 1], "prompt_tokens")}\\s+${sum([0, 1], "completion_tokens")}`,
      ),
    );
    // Another project's usage is not this one's.
    expect((await keys(env, "usage", "--project", "other")).stdout).toContain("No completions in project other");
  });

  it("prints usage from the PostgreSQL store itself, a deleted key's included", async () => {
    const store = await openTestStore("postgres");
    cleanups.push(() => store.drop());
    const env = { DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-cli-")), DATABASE_URL: store.url! };
    const key = JSON.parse((await keys(env, "create", "--name", "gone", "--json")).stdout);
    const db = await openStore({ databaseUrl: store.url });
    const app = await buildApp({ config: loadConfig({ ...env, LOG_LEVEL: "silent" }), db, logger: false });
    cleanups.push(async () => {
      await app.close();
      await db.close();
    });
    const res = await app.inject({
      method: "POST",
      url: "/v1/chat/completions",
      headers: { authorization: `Bearer ${key.secret}` },
      payload: { model: "agentport/synthetic-20", messages: [{ role: "user", content: "Hello" }] },
    });
    await app.usage.flush();
    await keys(env, "delete", key.id);
    const { usage } = res.json();
    expect(JSON.parse((await keys(env, "usage", "--json")).stdout).data).toEqual([
      {
        api_key_id: key.id,
        name: null,
        model: "agentport/synthetic-20",
        num_model_requests: 1,
        input_tokens: usage.prompt_tokens,
        output_tokens: usage.completion_tokens,
        cost_usd: 0,
      },
    ]);
    expect((await keys(env, "usage")).stdout).toContain("(deleted)");
    const err = await keys(env, "usage", "--days", "0").catch((e) => e);
    expect(err.code).toBe(2);
  });

  it(
    "mints a member token the running server's member routes accept, with the secret it generated in DATA_DIR",
    { timeout: 120_000 },
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "agentport-cli-"));
      // No JWT_SECRET on either side: the server generates one into DATA_DIR and the CLI reads it there.
      const server = await startServerProcess({ DATA_DIR: dataDir, JWT_SECRET: "" });
      cleanups.push(async () => {
        server.child.kill("SIGTERM");
        await server.exited;
      });
      const env = { DATA_DIR: dataDir, JWT_SECRET: "" };
      const token = async (...args: string[]) => (await keys(env, "token", "--project", "p1", ...args)).stdout.trim();
      const api = (bearer: string, method = "GET", project = "p1", body?: unknown) =>
        fetch(`${server.url}/v1/organization/projects/${project}/api_keys`, {
          method,
          headers: { authorization: `Bearer ${bearer}`, ...(body ? { "content-type": "application/json" } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });

      const admin = await token("--role", "admin", "--ttl", "15m");
      const created = await api(admin, "POST", "p1", { name: "from a minted token", rate_limits: { rpm: 7 } });
      expect(created.status).toBe(201);
      const member = await token(); // role member, one hour
      expect((await api(member)).status).toBe(200);
      expect((await api(member, "POST", "p1", { name: "x" })).status).toBe(403); // members only list
      expect((await api(admin, "GET", "p2")).status).toBe(403); // another project

      const described = JSON.parse(
        (await keys(env, "token", "--project", "p1", "--role", "owner", "--ttl", "3600", "--json")).stdout,
      );
      expect(described).toMatchObject({ project_id: "p1", role: "owner", sub: "operator" });
      expect(described.expires_at - Math.floor(Date.now() / 1000)).toBeGreaterThan(3500);
      expect((await api(described.token)).status).toBe(200);

      // create --rpm/--tpm through the running server too.
      const limited = JSON.parse(
        (await keys(env, "create", "--name", "limited", "--project", "p1", "--rpm", "3", "--tpm", "500", "--json"))
          .stdout,
      );
      expect(limited.rate_limits).toEqual({ rpm: 3, tpm: 500 });
    },
  );

  it("refuses bad flags with exit 2 and the usage", async () => {
    const env = { DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-cli-")), JWT_SECRET: "t".repeat(64) };
    const bad: [string[], string][] = [
      [["create", "--name", "x", "--rpm", "0"], "--rpm takes a whole number from 1 to 1000000000"],
      [["create", "--name", "x", "--tpm", "lots"], "--tpm takes a whole number from 1 to 1000000000000"],
      [["create", "--name", "x", "--rpm"], "Option '--rpm <value>' argument missing"],
      [["token", "--role", "boss"], "--role takes one of owner, admin, member (got 'boss')"],
      [["token", "--ttl", "90d"], "--ttl takes seconds or 15m, 12h, 7d, at most 30d (got '90d')"],
      [["token", "--ttl", "soon"], "--ttl takes seconds or 15m, 12h, 7d, at most 30d (got 'soon')"],
      [["token", "--scope", "all"], "Unknown option '--scope'"],
    ];
    for (const [args, message] of bad) {
      const err = await keys(env, ...args).catch((e) => e);
      expect(err.code, args.join(" ")).toBe(2);
      expect(err.stderr).toContain(message);
      expect(err.stderr).toContain("usage: npm run keys -- create");
      expect(err.stdout).toBe("");
    }
  });

  it("refuses a bad environment with exit 2, one line per variable", async () => {
    const err = await keys(
      { DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-cli-")), JWT_SECRET: "t".repeat(64), JWT_ALGORITHM: "none" },
      "token",
    ).catch((e) => e);
    expect(err.code).toBe(2);
    expect(err.stderr.trim().split("\n")).toEqual([
      "keys: fix these environment variables",
      "JWT_ALGORITHM must be one of HS256, HS384, HS512 (got 'none')",
    ]);
  });

  it("explains usage on a bad command and exits non-zero", async () => {
    const err = await keys({ DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-cli-")) }, "create").catch((e) => e);
    expect(err.code).toBe(2);
    expect(err.stderr).toContain("create needs --name");
  });
});
