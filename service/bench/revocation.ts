/**
 * Bench section "revocation": how fast a key deleted through one connection stops working on
 * two service processes, under light load, on a private PostgreSQL cluster — in steady state,
 * right after the revocation listeners are cut, and after PostgreSQL restarts. Prints p50/p99 of
 * the time from the committed DELETE to each replica's first 401, and how many requests sent
 * after the DELETE returned still succeeded (the promise: zero).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { PgCluster } from "../../test/helpers/pg-cluster.js";
import { startServerProcess, type ServerProcess } from "../../test/helpers/server-process.js";
import { ApiKeys } from "../src/domain/api-keys.js";
import { openStore } from "../src/store/open.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);

const status = async (server: ServerProcess, secret: string) =>
  (
    await fetch(`${server.url}/v1/models`, {
      headers: { authorization: `Bearer ${secret}` },
      signal: AbortSignal.timeout(10_000),
    })
  ).status;

const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

export async function run(): Promise<void> {
  const cluster = await PgCluster.start();
  const replicas: ServerProcess[] = [];
  let stopLoad = false;
  try {
    const c = new pg.Client({ connectionString: cluster.url() });
    await c.connect();
    await c.query("CREATE DATABASE agentport");
    await c.end();
    const databaseUrl = cluster.url("agentport");
    const admin = await openStore({ databaseUrl });
    const keys = new ApiKeys(admin);
    for (const name of ["a", "b"]) {
      replicas.push(
        await startServerProcess({
          DATABASE_URL: databaseUrl,
          DATA_DIR: mkdtempSync(join(tmpdir(), `agentport-rev-${name}-`)),
          JWT_SECRET: "r".repeat(64),
        }),
      );
    }
    // Light background load on both replicas with a key that stays valid.
    const steady = (await keys.create({ projectId: "default", name: "load", createdBy: "bench" })).secret;
    const loops = replicas.flatMap((r) =>
      Array.from({ length: 4 }, async () => {
        while (!stopLoad) await status(r, steady).catch(() => 0);
      }),
    );

    async function measure(label: string, before?: () => Promise<void>) {
      const latencies: number[] = [];
      let successesAfter = 0;
      for (let i = 0; i < ROUNDS; i++) {
        const { record, secret } = await keys.create({ projectId: "default", name: "k", createdBy: "bench" });
        for (const r of replicas) if ((await status(r, secret)) !== 200) throw new Error("a fresh key was refused");
        await before?.();
        await keys.delete("default", record.id);
        const deleted = performance.now();
        for (const r of replicas) {
          for (;;) {
            const s = await status(r, secret);
            if (s === 401) break;
            if (s === 200) successesAfter++;
            if (performance.now() - deleted > 15_000) throw new Error(`${label}: still served 15 s after the delete`);
          }
          latencies.push(performance.now() - deleted);
        }
      }
      console.log(
        `  ${label.padEnd(34)} p50 ${percentile(latencies, 50).toFixed(1).padStart(6)} ms   p99 ${percentile(latencies, 99).toFixed(1).padStart(6)} ms   successes after delete: ${successesAfter}`,
      );
    }

    await measure("steady state");
    await measure("right after a listener cut", async () => {
      const k = new pg.Client({ connectionString: databaseUrl });
      await k.connect();
      await k.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'agentport-listener'",
      );
      await k.end();
    });
    await cluster.kill();
    await new Promise((r) => setTimeout(r, 3000));
    await cluster.startServer();
    for (const r of replicas) {
      for (
        let i = 0;
        i < 200 &&
        ((await (await fetch(`${r.url}/health/ready`)).json().catch(() => ({}))) as { notifications?: string })
          .notifications !== "live";
        i++
      )
        await new Promise((res) => setTimeout(res, 100));
    }
    await measure("after a PostgreSQL restart");
    stopLoad = true;
    await Promise.all(loops);
    await admin.close();
  } finally {
    stopLoad = true;
    for (const r of replicas) r.child.kill("SIGKILL");
    await cluster.remove();
  }
}
