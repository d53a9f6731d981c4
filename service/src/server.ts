/**
 * Starts the service: the only file that listens and handles signals.
 * SIGTERM/SIGINT: stop accepting, let in-flight responses and streams finish within
 * SHUTDOWN_GRACE_SECONDS, then end whatever is left and exit.
 * A promise rejection nobody handled is logged and the replica keeps serving: it is a bug in one
 * request's path, and ending the process for it (Node's default) would cut every tenant's
 * in-flight requests and streams. An uncaught exception stays fatal: its state may be torn.
 */
import type { Logger } from "pino";
import { buildApp } from "./app.js";
import { ConfigError, loadConfig, type ServiceConfig } from "./config.js";
import { AgentsFileError } from "./domain/agents/agent-spec.js";
import { loadAgentSpecs } from "./domain/agents/agents-file.js";
import { onParentExit } from "./parent-watch.js";
import { bindMessage, bindProblem } from "./port-probe.js";
import { dataDirHeld, writeServerRecord } from "./server-record.js";
import { collectStartupGarbage } from "./startup-gc.js";

/** The configuration, or every problem of the environment on its own line and exit 2 (a setup error, not a crash). */
function configOrExit(): ServiceConfig {
  try {
    return loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`agentport cannot start: fix these environment variables\n${err.message}\n`);
    process.exit(2);
  }
}

/** An invalid agents file is a setup problem like a bad variable: its lines, exit 2, no stack. */
function refuseAgents(err: unknown): never {
  if (!(err instanceof AgentsFileError)) throw err;
  process.stderr.write(`agentport cannot start: ${err.message}\n`);
  process.exit(2);
}

const config = configOrExit();
// Read once before the store starts, so a broken file is told at once, before initdb or a port.
try {
  loadAgentSpecs(config.agentsFile, undefined);
} catch (err) {
  refuseAgents(err);
}
const deadline = new AbortController();
// The embedded store is this process's alone: a CLI on the same data dir must come through us.
const embedded = !config.databaseUrl;
if (embedded && (await dataDirHeld(config.dataDir))) {
  process.stderr.write(
    `Another agentport server holds ${config.dataDir} (see server.json there); stop it or set DATA_DIR.\n`,
  );
  process.exit(1);
}
// Before anything is written: the embedded store's first start fills the data dir (initdb).
const busy = await bindProblem(config.host, config.port);
if (busy) {
  process.stderr.write(`${bindMessage(config.host, config.port, busy)}\n`);
  process.exit(1);
}
const forgetStarting = embedded ? writeServerRecord(config.dataDir) : () => {};
const app = await buildApp({ config, drainDeadline: deadline.signal }).catch((err: unknown) => {
  // What only the registry finds (a fallback cycle, an upstream not configured).
  forgetStarting();
  return refuseAgents(err);
});
process.on("unhandledRejection", (reason) =>
  app.log.error({ err: reason }, "unhandled promise rejection: logged, still serving"),
);

let address: string;
try {
  await app.ready();
  // What starting left behind would otherwise stay resident while idle (startup-gc.ts). Collected
  // before listening, so no request ever waits on the pause.
  collectStartupGarbage();
  address = await app.listen({ host: config.host, port: config.port, backlog: config.http.listenBacklog });
} catch (err) {
  // A busy port is a setup problem, not a crash: one line, no record left behind, exit at once.
  forgetStarting();
  process.stderr.write(`${bindMessage(config.host, config.port, err as NodeJS.ErrnoException)}\n`);
  await Promise.race([app.close().catch(() => {}), new Promise((r) => setTimeout(r, 2000).unref())]);
  process.exit(1);
}
const forgetRecord = embedded
  ? writeServerRecord(config.dataDir, address.replace("://0.0.0.0", "://127.0.0.1").replace("://[::]", "://127.0.0.1"))
  : () => {};
const { count } = (await app.db.query<{ count: string }>("SELECT count(*)::text AS count FROM api_keys")).rows[0];
app.log.info(
  { store: app.db.kind, blobStore: config.blob.kind, keys: Number(count) },
  `agentport API on ${config.publicUrl}/v1 — create a key with: npm run keys -- create --name my-app`,
);
// Lines are written in batches (http/log-destination.ts): the ones saying the server is up go now.
(app.log as Logger).flush();

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  app.log.info({ signal, graceSeconds: config.shutdownGraceSeconds }, "shutting down: draining in-flight requests");
  const grace = setTimeout(() => {
    app.log.warn("grace period over: ending open streams");
    deadline.abort();
    // Give streams a moment to write their closing event, then drop every connection.
    setTimeout(() => app.server.closeAllConnections(), 1000).unref();
  }, config.shutdownGraceSeconds * 1000);
  grace.unref();
  try {
    await app.close();
    forgetRecord();
    process.exit(0);
  } catch (err) {
    app.log.error({ err }, "shutdown failed");
    process.exit(1);
  }
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
onParentExit(() => void shutdown("parent exited"));
