/**
 * Starts the service: the only file that listens and handles signals.
 * SIGTERM/SIGINT: stop accepting, let in-flight responses and streams finish within
 * SHUTDOWN_GRACE_SECONDS, then end whatever is left and exit.
 */
import { buildApp } from "./app.js";
import { loadConfig } from "./config.js";

const config = loadConfig();
const deadline = new AbortController();
const app = await buildApp({ config, drainDeadline: deadline.signal });

await app.listen({ host: config.host, port: config.port });
const { count } = (await app.db.query<{ count: string }>("SELECT count(*)::text AS count FROM api_keys")).rows[0];
app.log.info(
  { store: app.db.kind, blobStore: config.blob.kind, keys: Number(count) },
  `agentport API on ${config.publicUrl}/v1 — create a key with: npm run keys -- create --name my-app`,
);

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
    process.exit(0);
  } catch (err) {
    app.log.error({ err }, "shutdown failed");
    process.exit(1);
  }
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
