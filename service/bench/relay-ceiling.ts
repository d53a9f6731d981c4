/**
 * Child process, bundled as the artifact is (lib/service-process.ts): the relay's ceiling. The
 * service as the image runs it (default logging, the embedded store), plus one route: the spec floor's own relay handler
 * (lib/floor-relay.ts) behind the service's whole request pipeline — the /v1 hooks (key lookup,
 * limits), the request-body schema, the request id and response headers, the access line and
 * the request metrics. No relay inside this pipeline can beat that handler, so the ceiling's
 * req/s over the spec floor's is the most the llm agent can reach against the floor here: the
 * rest of the distance is the pipeline's, not the relay's.
 */
import type { AddressInfo } from "node:net";
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { requireApiKey } from "../src/plugins/api-key-auth.js";
import { ChatBody } from "../src/routes/v1/chat/completions/schema.js";
import { answerCpuQuestions } from "./lib/children.js";
import { floorRelay } from "./lib/floor-relay.js";

export interface RelayCeiling {
  /** POST `${url}/chat/completions` is the floor's handler behind the service's pipeline. */
  url: string;
  key: string;
}

const app = await buildApp({ config: loadConfig() });
// The hooks and the body schema of the service's own /v1 scope (routes/v1/index.ts, chat/completions).
await app.register(
  async (scope) => {
    scope.addHook("onRequest", requireApiKey);
    scope.addHook("onRequest", scope.limitKeyRequests);
    scope.post("/chat/completions", { schema: { body: ChatBody } }, floorRelay(process.env.BENCH_UPSTREAM!));
  },
  { prefix: "/ceiling/v1" },
);
await app.listen({ port: 0, host: "127.0.0.1" });
const { secret } = await app.apiKeys.create({ projectId: "default", name: "bench", createdBy: "bench" });

answerCpuQuestions();
process.send!({
  url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/ceiling/v1`,
  key: secret,
} satisfies RelayCeiling);
// Its store closes first; a close that fails still ends the process, so the bench never waits on it.
process.on("SIGTERM", () => void app.close().finally(() => process.exit(0)));
