/**
 * Sizing: what one pod with the stack's default resource requests sustains, on the production build
 * relaying to a fast local upstream, with its store on a PostgreSQL server as deployments run it.
 * - Saturated (20 connections): the service's CPU per request, JSON and SSE; so the requests a
 *   second that the pod's CPU request covers, and covers at the autoscaler's target utilization.
 * - Paced at that target rate (at most half the saturated rate this machine reached): p50/p99
 *   through the service against the same requests sent straight to the upstream at the same rate —
 *   the latency the service adds.
 * - Streams: open streams the pod's memory request holds, from the streams dimension's memory per
 *   open stream and idle RSS (when it ran in the same invocation).
 * The defaults are read from the stack schema (infra/stack/schema-deploy.ts), not copied.
 */
import { rmSync } from "node:fs";
import { api as apiSchema } from "../../../infra/stack/schema-deploy.js";
import { createTestDatabase } from "../../../test/helpers/store.js";
import { fixed } from "../../src/cli/table.js";
import { startChild } from "../lib/children.js";
import { load, type LoadResult } from "../lib/load.js";
import { benchEnv, createKey, processCpuMicros, startWarm, stopService } from "../lib/service-process.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);

/** What the streams dimension measured, when it ran first. */
export const streamFindings: { kbPerStream?: number; idleMb?: number; cpuUsPerToken?: number } = {};

/** "250m" → 0.25, "1" → 1. */
const cores = (quantity: string | number) => {
  const q = String(quantity);
  return q.endsWith("m") ? Number(q.slice(0, -1)) / 1000 : Number(q);
};
/** "256Mi" → 256, "1Gi" → 1024 (MiB). */
const mib = (quantity: string | number, q = String(quantity)) =>
  q.endsWith("Gi") ? Number(q.slice(0, -2)) * 1024 : q.endsWith("Mi") ? Number(q.slice(0, -2)) : Number(q) / 2 ** 20;

export async function run(): Promise<boolean> {
  const defaults = apiSchema.parse({});
  const cpuRequest = cores(defaults.resources.requests!.cpu!);
  const memRequest = mib(defaults.resources.requests!.memory!);
  const memLimit = mib(defaults.resources.limits!.memory!);
  const target = defaults.targetCpuPercent / 100;
  console.log(
    `    stack defaults: requests ${defaults.resources.requests!.cpu} CPU, ${defaults.resources.requests!.memory}; limits ${defaults.resources.limits!.cpu}, ${defaults.resources.limits!.memory}; HPA target ${defaults.targetCpuPercent}% CPU, ${defaults.replicas}–${defaults.maxReplicas} replicas`,
  );
  const upstream = await startChild<{ url: string }>(new URL("../chat-upstream.ts", import.meta.url));
  const db = await createTestDatabase();
  const env = benchEnv("built", upstream.info.url, db.url);
  const service = await startWarm("built", env);
  try {
    const key = createKey("built", env);
    const pid = service.child.pid!;
    for (const stream of [false, true]) {
      const body = JSON.stringify({
        model: "agentport/llm-bench",
        stream,
        messages: [{ role: "user", content: "Hi" }],
      });
      const through = (opts: { connections: number; rate?: number }) =>
        load({
          url: `${service.url}/v1/chat/completions`,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body,
          seconds: SECONDS,
          ...opts,
        });
      await through({ connections: 10 }); // warm
      const before = processCpuMicros(pid);
      const saturated = await through({ connections: 20 });
      const cpuUs = (processCpuMicros(pid) - before) / saturated.requests;
      const perPod = (cpuRequest * 1e6) / cpuUs;
      // Paced at the pod's target rate, but no faster than half what this machine served saturated: beyond, the
      // figure would be this machine's queue, not what the service adds.
      const rate = Math.max(1, Math.round(Math.min(perPod * target, saturated.rps / 2)));
      const paced = await through({ connections: 20, rate });
      const direct = await load({
        url: `${upstream.info.url}/chat/completions`,
        headers: { "content-type": "application/json" },
        body,
        seconds: SECONDS,
        connections: 20,
        rate,
      });
      const failed = [saturated, paced, direct].some((r: LoadResult) => r.failures > 0);
      console.log(
        `    ${stream ? "SSE " : "JSON"}: ${fixed(cpuUs, 0)} µs CPU a request (saturated: ${fixed(saturated.rps, 0)} req/s on this machine) → ${fixed(perPod, 0)} req/s per pod at its ${defaults.resources.requests!.cpu} request, ${fixed(perPod * target, 0)} at the ${defaults.targetCpuPercent}% target`,
      );
      console.log(
        `          at ${rate} req/s: p50 ${fixed(paced.p50, 1)} ms, p99 ${fixed(paced.p99, 1)} ms through the service; straight to the upstream p50 ${fixed(direct.p50, 1)}, p99 ${fixed(direct.p99, 1)} → adds p99 ${fixed(paced.p99 - direct.p99, 1)} ms${failed ? " (some requests failed: not a valid figure)" : ""}`,
      );
    }
    const { kbPerStream, idleMb, cpuUsPerToken } = streamFindings;
    if (kbPerStream !== undefined && idleMb !== undefined) {
      const held = (mb: number) => ((mb - idleMb) * 1024) / kbPerStream;
      console.log(
        `    streams: ${fixed(kbPerStream, 0)} KB each over ${fixed(idleMb, 0)} MB idle → ${fixed(held(memRequest), 0)} open streams in the ${defaults.resources.requests!.memory} request, ${fixed(held(memLimit), 0)} under the ${defaults.resources.limits!.memory} limit; ${fixed(cpuUsPerToken ?? NaN, 0)} µs CPU a token relayed → ${fixed((1e6 / (cpuUsPerToken ?? NaN)) * cpuRequest, 0)} tokens a second at the ${defaults.resources.requests!.cpu} request`,
      );
    } else console.log("    streams: run the streams dimension in the same invocation for streams per pod");
    return true;
  } finally {
    await stopService(service);
    rmSync(env.DATA_DIR, { recursive: true, force: true });
    await upstream.stop();
    await db.drop();
  }
}
