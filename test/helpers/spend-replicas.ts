/**
 * Two replicas of the app (two instances sharing one PostgreSQL database and the one Redis, with a
 * key prefix of their own there) behind a fake upstream that reports usage (upstream-stub.ts): what
 * spend and budgets across replicas are tested on.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../service/src/app.js";
import { loadConfig } from "../../service/src/config.js";
import { openStore } from "../../service/src/store/open.js";
import { signMemberToken } from "../../service/src/domain/member-token.js";
import { agentsFileOf } from "./app.js";
import { listen } from "./openai-client.js";
import { openTestStore, type TestStore } from "./store.js";
import { startUpstreamStub, type UpstreamStub } from "./upstream-stub.js";

export const REDIS_URL = "redis://127.0.0.1:6379";
const JWT_SECRET = "spend-replicas-".padEnd(64, "x");

export interface Replica {
  app: FastifyInstance;
  /** `…/v1` */
  baseURL: string;
}

export interface SpendReplicas {
  replicas: [Replica, Replica];
  stub: UpstreamStub;
  store: TestStore;
  /** An owner's member token for `project`. */
  ownerToken(project?: string): Promise<string>;
  /** Both replicas write the usage they summed so far. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export async function startSpendReplicas(agents: object[], env: Record<string, string> = {}): Promise<SpendReplicas> {
  const stub = await startUpstreamStub();
  const store = await openTestStore("postgres");
  const agentsFile = agentsFileOf(agents);
  const closers: Array<() => Promise<unknown>> = [];
  const replica = async (): Promise<Replica> => {
    const config = loadConfig({
      DATA_DIR: mkdtempSync(join(tmpdir(), "agentport-spend-")),
      JWT_SECRET,
      LOG_LEVEL: "silent",
      REDIS_URL,
      // What is tested is the shared count: on a loaded test machine a Redis call past the default
      // 250 ms would fall back to each replica's own count (the documented policy), which is not.
      REDIS_COMMAND_TIMEOUT_MS: "5000",
      AGENTS_FILE: agentsFile,
      LLM_BASE_URL: stub.url,
      ...env,
    });
    const db = await openStore({ databaseUrl: store.url });
    const app = await buildApp({ config, db, logger: false });
    const baseURL = await listen(app);
    config.publicUrl = baseURL.replace(/\/v1$/, "");
    closers.unshift(async () => {
      await app.close();
      await db.close();
    });
    return { app, baseURL };
  };
  const replicas: [Replica, Replica] = [await replica(), await replica()];
  return {
    replicas,
    stub,
    store,
    ownerToken: (project = "default") =>
      signMemberToken({ userId: "user_owner", projectId: project, role: "owner" }, JWT_SECRET),
    async flush() {
      for (const r of replicas) await r.app.usage.flush();
    },
    async close() {
      for (const c of closers) await c();
      await store.drop();
      await stub.close();
    },
  };
}
