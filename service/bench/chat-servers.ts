/**
 * Child process: the references the chat bench compares the service with. A bare Fastify route
 * answering the service's own bytes (captured from the running service), and a minimal Fastify +
 * undici pass-through proxy to the same upstream that checks a bearer token as the service does.
 */
import type { AddressInfo } from "node:net";
import Fastify, { type FastifyInstance } from "fastify";
import { Agent, request } from "undici";
import { answerCpuQuestions } from "./lib/children.js";

export interface ChatServers {
  bare: string;
  proxy: string;
}

const upstream = process.env.BENCH_UPSTREAM!;
const service = process.env.BENCH_SERVICE!;
const key = process.env.BENCH_KEY!;
const url = (s: FastifyInstance) => `http://127.0.0.1:${(s.server.address() as AddressInfo).port}`;

// The bare routes answer exactly the bytes the service produced for the same request.
async function capture(path: string, body?: object): Promise<string> {
  const res = await request(`${service}${path}`, {
    method: body ? "POST" : "GET",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body && JSON.stringify(body),
  });
  if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}`);
  return res.body.text();
}
const chat = (stream: boolean) => ({ model: "agentport/synthetic-20", messages: [{ role: "user", content: "Say something." }], stream });
const modelsBytes = await capture("/v1/models");
const jsonBytes = await capture("/v1/chat/completions", chat(false));
const sseBytes = await capture("/v1/chat/completions", chat(true));
const bare = Fastify({ logger: false });
bare.get("/bare/models", async (_req, reply) => reply.type("application/json").send(modelsBytes));
bare.post("/bare/json", async (_req, reply) => reply.type("application/json").send(jsonBytes));
bare.post("/bare/stream", async (_req, reply) => reply.header("cache-control", "no-cache").type("text/event-stream").send(sseBytes));
await bare.listen({ port: 0, host: "127.0.0.1" });

// The reference proxy: check the bearer token, parse, forward, pipe the answer back. Nothing else.
const pool = new Agent({ keepAliveTimeout: 30_000 });
const proxy = Fastify({ logger: false });
const expected = `Bearer ${key}`;
proxy.post("/v1/chat/completions", async (req, reply) => {
  if (req.headers.authorization !== expected) return reply.code(401).send({ error: { message: "bad key" } });
  const res = await request(`${upstream}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(req.body),
    dispatcher: pool,
  });
  return reply.code(res.statusCode).type(String(res.headers["content-type"])).send(res.body);
});
await proxy.listen({ port: 0, host: "127.0.0.1" });

answerCpuQuestions();
process.send!({ bare: url(bare), proxy: url(proxy) } satisfies ChatServers);
process.on("SIGTERM", () => process.exit(0));
