/**
 * Child process: the references the chat bench compares the service with. A bare Fastify route
 * answering the service's own bytes (captured from the running service), and a minimal Fastify +
 * undici pass-through proxy to the same upstream that checks a bearer token as the service does.
 *
 * Each also runs a second time as its "spec floor": the same route with only the duties the
 * service owes every request and neither reference has, each done a plain, cheap way: the key
 * looked up by its SHA-256 (keys are stored hashed, never in the clear), and one JSON access line
 * to stdout through the service's own batched writer (default logging). The proxy's floor also
 * checks that what it relays is JSON (a client gets the upstream's answer or an error in the
 * OpenAI envelope, never a broken chunk): it parses the JSON answer, and each SSE event's data,
 * and passes the upstream's bytes on as they came. It tells how much of a gap to the reference
 * any server that keeps those duties must pay on this machine.
 */
import { hash } from "node:crypto";
import type { AddressInfo } from "node:net";
import { hostname as osHostname } from "node:os";
import Fastify, { type FastifyInstance, type FastifyRequest } from "fastify";
import { request } from "undici";
import { batchedStdout } from "../src/http/log-destination.js";
import { answerCpuQuestions } from "./lib/children.js";
import { floorRelay } from "./lib/floor-relay.js";

export interface ChatServers {
  bare: string;
  proxy: string;
  /** The bare routes and the proxy with the spec's per-request duties (see above). */
  bareFloor: string;
  proxyFloor: string;
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
const chat = (stream: boolean) => ({
  model: "agentport/synthetic-20",
  messages: [{ role: "user", content: "Say something." }],
  stream,
});
const modelsBytes = await capture("/v1/models");
const jsonBytes = await capture("/v1/chat/completions", chat(false));
const sseBytes = await capture("/v1/chat/completions", chat(true));

const digest = (secret: string) => hash("sha256", secret, "base64");
const keys = new Map([[digest(key), { keyId: "key_bench", projectId: "proj_bench" }]]);
const log = batchedStdout();
const hostname = osHostname();
type KeyedRequest = FastifyRequest & { benchKey?: { keyId: string; projectId: string } };

/** The spec's per-request duties: a hashed key lookup, one access line. */
function withSpecDuties(app: FastifyInstance): void {
  app.addHook("onRequest", (request, reply, done) => {
    const req = request as KeyedRequest;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
    req.benchKey = m ? keys.get(digest(m[1])) : undefined;
    if (!req.benchKey) return void reply.code(401).send({ error: { message: "bad key" } });
    reply.header("x-request-id", req.id);
    done();
  });
  app.addHook("onResponse", (request, reply, done) => {
    const req = request as KeyedRequest;
    const line = {
      level: 30,
      time: Date.now(),
      pid: process.pid,
      hostname,
      reqId: req.id,
      req: {
        method: req.method,
        url: req.url,
        host: req.host,
        remoteAddress: req.ip,
        remotePort: req.socket.remotePort,
      },
      res: { statusCode: reply.statusCode },
      responseTime: reply.elapsedTime,
      keyId: req.benchKey?.keyId,
      projectId: req.benchKey?.projectId,
      msg: "request completed",
    };
    log.write(JSON.stringify(line) + "\n");
    done();
  });
}

function bareRoutes(app: FastifyInstance): FastifyInstance {
  app.get("/bare/models", async (_req, reply) => reply.type("application/json").send(modelsBytes));
  app.post("/bare/json", async (_req, reply) => reply.type("application/json").send(jsonBytes));
  app.post("/bare/stream", async (_req, reply) =>
    reply.header("cache-control", "no-cache").type("text/event-stream").send(sseBytes),
  );
  return app;
}

// The reference proxy: check the bearer token, parse, forward, pipe the answer back. Nothing else.
const expected = `Bearer ${key}`;
function proxyRoute(app: FastifyInstance, duties: { checkToken: boolean; checkAnswers: boolean }): FastifyInstance {
  const relay = floorRelay(upstream, duties.checkAnswers);
  app.post("/v1/chat/completions", async (req, reply) => {
    if (duties.checkToken && req.headers.authorization !== expected)
      return reply.code(401).send({ error: { message: "bad key" } });
    return relay(req, reply);
  });
  return app;
}

const floor = () => {
  const app = Fastify({ logger: false });
  withSpecDuties(app);
  return app;
};
const servers = {
  bare: bareRoutes(Fastify({ logger: false })),
  proxy: proxyRoute(Fastify({ logger: false }), { checkToken: true, checkAnswers: false }),
  bareFloor: bareRoutes(floor()),
  // Its key check is the hashed lookup in its onRequest hook.
  proxyFloor: proxyRoute(floor(), { checkToken: false, checkAnswers: true }),
};
for (const s of Object.values(servers)) await s.listen({ port: 0, host: "127.0.0.1" });

answerCpuQuestions();
process.send!({
  bare: url(servers.bare),
  proxy: url(servers.proxy),
  bareFloor: url(servers.bareFloor),
  proxyFloor: url(servers.proxyFloor),
} satisfies ChatServers);
process.on("SIGTERM", () => process.exit(0));
