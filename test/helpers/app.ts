/** Builds the app the way tests need it: a test store, quiet logs, keys and member tokens on demand. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { buildApp, type AppOptions } from "../../service/src/app.js";
import { loadConfig, type ServiceConfig } from "../../service/src/config.js";
import { scopeOf, signMemberToken, type Role } from "../../service/src/domain/member-token.js";
import { openTestStore, type StoreKind, type TestStore } from "./store.js";

export interface TestApp {
  app: FastifyInstance;
  store: TestStore;
  config: ServiceConfig;
  /** Creates a key in `projectId` (default "default") and returns its secret. */
  createKey(projectId?: string, name?: string): Promise<{ id: string; secret: string }>;
  memberToken(role: Role, projectId?: string, userId?: string): Promise<string>;
  close(): Promise<void>;
}

/** Environment overrides are applied on top of a config rooted in a fresh temp data dir. */
export async function buildTestApp(
  kind: StoreKind = "pglite",
  env: Record<string, string> = {},
  /** Parts of the app a test builds itself (a blob store that fails on purpose, a logger). */
  parts: Pick<AppOptions, "blobs" | "logger"> = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), "agentport-test-"));
  const config = loadConfig({
    DATA_DIR: dataDir,
    JWT_SECRET: "test-jwt-secret-".padEnd(64, "x"),
    LOG_LEVEL: "silent",
    ...env,
  });
  const store = await openTestStore(kind);
  const app = await buildApp({ config, db: store.db, logger: false, ...parts });
  await app.ready();
  return {
    app,
    store,
    config,
    async createKey(projectId = "default", name = "test key") {
      const { record, secret } = await app.apiKeys.create({ projectId, name, createdBy: "user_test" });
      return { id: record.id, secret };
    },
    memberToken: (role, projectId = "default", userId = "user_" + role) =>
      signMemberToken({ userId, projectId, role }, config.jwtSecret, scopeOf(config)),
    async close() {
      await app.close();
      await store.drop();
    },
  };
}

/** An agents file (AGENTS_FILE) declaring `agents`, in a temp dir of its own. */
export function agentsFileOf(agents: object[]): string {
  const file = join(mkdtempSync(join(tmpdir(), "agentport-agents-")), "agents.json");
  writeFileSync(file, JSON.stringify({ agents }));
  return file;
}
