/**
 * Child process: the servers the chat bench compares. The service (PGlite in memory, a synthetic
 * and an llm agent), a bare Fastify route answering the service's own bytes, and a minimal
 * Fastify + undici pass-through proxy to the same upstream.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import Fastify, { type FastifyInstance } from "fastify";
import { Agent, request } from "undici";
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { openStore } from "../src/store/open.js";
import { requireApiKey } from "../src/plugins/api-key-auth.js";
import { answerCpuQuestions } from "./lib/children.js";

export interface ChatServers {
  app: string;
  bare: string;
  proxy: string;
  key: string;
}

const upstream = process.env.BENCH_UPSTREAM!;
const url = (s: FastifyInstance) => `http://127.0.0.1:${(s.server.address() as AddressInfo).port}`;

const dir = mkdtempSync(join(tmpdir(), "agentport-bench-"));
writeFileSync(
  join(dir, "agents.json"),
  JSON.stringify({
    agents: [
      { id: "synthetic-20", kind: "synthetic", tokens: 20 },
      { id: "llm-bench", kind: "llm", model: "bench" },
    ],
  }),
);
const config = loadConfig({ DATA_DIR: dir, JWT_SECRET: "bench".padEnd(64, "-"), AGENTS_FILE: join(dir, "agents.json"), LLM_BASE_URL: upstream, LLM_API_KEY: "bench-upstream-key" });
const db = await openStore({});
const app = await buildApp({ config, db, logger: false });
// The floor: the service's own hooks and key check around a route that answers constant bytes.
let floorBytes = "";
await app.register(async (scope) => {
  scope.addHook("onRequest", requireApiKey);
  scope.post("/bench/floor", async (_req, reply) => reply.type("application/json").send(floorBytes));
});
await app.listen({ port: 0, host: "127.0.0.1" });
const { secret } = await app.apiKeys.create({ projectId: "default", name: "bench", createdBy: "bench" });

// The bare route answers exactly the bytes the service produced for the same request.
const capture = async (stream: boolean) =>
  (
    await app.inject({
      method: "POST",
      url: "/v1/chat/completions",
      headers: { authorization: `Bearer ${secret}` },
      payload: { model: "agentport/synthetic-20", messages: [{ role: "user", content: "Say something." }], stream },
    })
  ).body;
const jsonBytes = await capture(false);
floorBytes = jsonBytes;
const sseBytes = await capture(true);
const bare = Fastify({ logger: false });
bare.post("/bare/json", async (_req, reply) => reply.type("application/json").send(jsonBytes));
bare.post("/bare/stream", async (_req, reply) => reply.header("cache-control", "no-cache").type("text/event-stream").send(sseBytes));
await bare.listen({ port: 0, host: "127.0.0.1" });

// The reference proxy: parse, forward, pipe the answer back. Nothing else.
const pool = new Agent({ keepAliveTimeout: 30_000 });
const proxy = Fastify({ logger: false });
proxy.post("/v1/chat/completions", async (req, reply) => {
  const res = await request(`${upstream}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(req.body),
    dispatcher: pool,
  });
  return reply.code(res.statusCode).type(String(res.headers["content-type"])).send(res.body);
});
await proxy.listen({ port: 0, host: "127.0.0.1" });

const info: ChatServers = { app: url(app), bare: url(bare), proxy: url(proxy), key: secret };
answerCpuQuestions();
process.send!(info);
process.on("SIGTERM", () => process.exit(0));
