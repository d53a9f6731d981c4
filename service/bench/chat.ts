/**
 * Chat bench, on the production build with default logging (as the image runs it). Throughput
 * (autocannon) of the models list and authenticated chat on the synthetic agent against a bare
 * Fastify route answering the same bytes (goal ≥ 0.7), and of the llm agent against a minimal
 * Fastify + undici proxy that checks a bearer token, to the same upstream stub (goal ≥ 0.8); time
 * to first content delta of the llm stream against that proxy (goal: ≤ 1 ms added at p99). Ratios
 * are taken within one run. On a shared machine req/s swings with other load; each server's CPU
 * time per request (measured on its own process) does not, so both ratios are printed.
 *
 * Each reference also runs as its "spec floor" (chat-servers.ts): itself plus a hashed key lookup
 * and an access line per request, which the service owes every request and the references skip,
 * and for the proxy a parse of what it relays (the service hands on JSON or an error, never a
 * broken chunk).
 * The floor's ratio bounds what any implementation keeping those duties can reach on this machine:
 * a goal above it is out of reach by definition, and our ratio to the floor is the distance left.
 *
 * What the per-key limits and the usage accounting cost on the hot path: the same service with
 * requests- and tokens-per-minute limits counted in Redis (never reached) against it without, on
 * the models list (the request limit alone) and on chat (both); far from the limits, so most
 * requests are admitted from the replica's credit (domain/limits/leased-windows.ts) and about one
 * in 33 goes to Redis; and a completion's usage record timed in this process, as a share of a chat
 * request's CPU time in the same run.
 *
 * The goals of the relay's performance issue close the table (chat-verdicts.ts): the built llm
 * relay's JSON against its ceiling (relay-ceiling.ts: the floor's own handler behind the service's
 * built pipeline, the most any relay inside that pipeline reaches) ≥ 0.92 and its SSE against the
 * spec floor ≥ 0.85, the limits on against off ≥ 0.85, each the median of the rounds' paired
 * ratios with its range, so one run shows how far it can be trusted.
 *
 * A peer: Portkey's open-source gateway (lib/portkey.ts) in front of the same upstream stub, on the
 * llm paths, measured in each round beside ours (goal: agentport ≥ 5× its req/s, the median of the
 * rounds' paired ratios). A path it cannot serve is printed as failing, with why.
 */
import { load } from "./lib/load.js";
import { mean, type Measured } from "./lib/rounds.js";
import { comparePortkey, printGoals, type Pair, type Rounds, type Target } from "./chat-verdicts.js";
import { startChild } from "./lib/children.js";
import { pathToFileURL } from "node:url";
import {
  benchEnv,
  buildArtifact,
  bundleLikeArtifact,
  createKey,
  processCpuMicros,
  startWarm,
  stopService,
} from "./lib/service-process.js";
import { fixed, table } from "../src/cli/table.js";
import { percentile, ttft } from "./lib/ttft.js";
import { usageRecordNanos } from "./usage-cost.js";
import type { ChatServers } from "./chat-servers.js";
import { startPortkey, type Portkey } from "./lib/portkey.js";
import { scriptCalls, type ScriptCalls } from "./lib/redis-calls.js";
import type { RelayCeiling } from "./relay-ceiling.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const TTFT_SAMPLES = Number(process.env.BENCH_TTFT_SAMPLES ?? 300);
/** Only the pairs whose description matches, e.g. BENCH_PAIRS="llm SSE". */
const PAIRS = new RegExp(process.env.BENCH_PAIRS ?? ".");

interface Endpoints extends ChatServers {
  app: string;
  key: string;
  /** The same service with requests- and tokens-per-minute limits counted in Redis (never reached). */
  limited: string;
  limitedKey: string;
  /** The service as `npm start` runs it. */
  npmStart: string;
  npmStartKey: string;
  ceiling: RelayCeiling;
}

const chatBody = (model: string, stream: boolean) =>
  JSON.stringify({ model, messages: [{ role: "user", content: "Say something." }], stream });

function pairs(s: Endpoints): Pair[] {
  const json = { "content-type": "application/json" };
  const auth = { ...json, authorization: `Bearer ${s.key}` };
  const ours = (name: string, model: string, stream: boolean): Target => ({
    name,
    url: `${s.app}/v1/chat/completions`,
    headers: auth,
    body: chatBody(model, stream),
  });
  const proxy = (stream: boolean, base = s.proxy, name = "Fastify+undici proxy"): Target => ({
    name: `${name}, ${stream ? "SSE" : "JSON"}`,
    url: `${base}/v1/chat/completions`,
    headers: auth,
    body: chatBody("bench", stream),
  });
  const proxyFloor = (stream: boolean) =>
    proxy(stream, s.proxyFloor, "  spec floor: proxy + hashed key + access line + JSON check");
  const bareFloor = (name: string, path: string, body?: string): Target => ({
    name: `  spec floor: ${name} + hashed key + access line`,
    url: `${s.bareFloor}${path}`,
    method: body ? "POST" : "GET",
    headers: body ? auth : { authorization: auth.authorization },
    body,
  });
  const synthetic = "agentport/synthetic-20";
  return [
    {
      what: "rate limiter (Redis)",
      goal: 0.9,
      reference: {
        name: "agentport GET /v1/models, no limit",
        url: `${s.app}/v1/models`,
        method: "GET",
        headers: { authorization: auth.authorization },
      },
      ours: {
        name: "agentport GET /v1/models, RPM in Redis",
        url: `${s.limited}/v1/models`,
        method: "GET",
        headers: { authorization: `Bearer ${s.limitedKey}` },
      },
    },
    {
      what: "rate limiters on chat (Redis)",
      goal: 0.9,
      reference: ours("agentport synthetic-20, JSON, no limit", synthetic, false),
      ours: {
        name: "agentport synthetic-20, JSON, RPM+TPM in Redis",
        url: `${s.limited}/v1/chat/completions`,
        headers: { ...json, authorization: `Bearer ${s.limitedKey}` },
        body: chatBody(synthetic, false),
      },
    },
    // Issue 28's goal 2: the limits almost free on the relay (one reservation round trip per run, settlement pipelined).
    ...([false, true] as const).map((stream) => ({
      what: `limits on (Redis, RPM+TPM) vs off, llm ${stream ? "SSE" : "JSON"}`,
      goal: 0.85,
      reference: ours(`agentport llm agent, ${stream ? "SSE" : "JSON"}, no limit`, "agentport/llm-bench", stream),
      ours: {
        name: `agentport llm agent, ${stream ? "SSE" : "JSON"}, RPM+TPM in Redis`,
        url: `${s.limited}/v1/chat/completions`,
        headers: { ...json, authorization: `Bearer ${s.limitedKey}` },
        body: chatBody("agentport/llm-bench", stream),
      },
    })),
    {
      what: "models list",
      goal: 0.7,
      reference: { name: "bare route, same models JSON", url: `${s.bare}/bare/models`, method: "GET", headers: {} },
      floor: bareFloor("bare route", "/bare/models"),
      ours: {
        name: "agentport GET /v1/models",
        url: `${s.app}/v1/models`,
        method: "GET",
        headers: { authorization: auth.authorization },
      },
    },
    {
      what: "synthetic JSON",
      goal: 0.7,
      reference: {
        name: "bare route, same JSON",
        url: `${s.bare}/bare/json`,
        headers: json,
        body: chatBody(synthetic, false),
      },
      floor: bareFloor("bare route", "/bare/json", chatBody(synthetic, false)),
      ours: ours("agentport synthetic-20, JSON", synthetic, false),
    },
    {
      what: "synthetic SSE",
      goal: 0.7,
      reference: {
        name: "bare route, same SSE bytes",
        url: `${s.bare}/bare/stream`,
        headers: json,
        body: chatBody(synthetic, true),
      },
      floor: bareFloor("bare route", "/bare/stream", chatBody(synthetic, true)),
      ours: ours("agentport synthetic-20, SSE", synthetic, true),
    },
    ...([false, true] as const).map((stream) => ({
      what: `llm ${stream ? "SSE" : "JSON"}`,
      goal: 0.8,
      reference: proxy(stream),
      floor: proxyFloor(stream),
      ours: ours(`agentport llm agent, ${stream ? "SSE" : "JSON"}`, "agentport/llm-bench", stream),
      npmStart: {
        name: `agentport llm agent, ${stream ? "SSE" : "JSON"}, npm start`,
        url: `${s.npmStart}/v1/chat/completions`,
        headers: { ...json, authorization: `Bearer ${s.npmStartKey}` },
        body: chatBody("agentport/llm-bench", stream),
      },
      ceiling: {
        name: `  relay ceiling: the built pipeline + the floor's handler, ${stream ? "SSE" : "JSON"}`,
        url: `${s.ceiling.url}/chat/completions`,
        headers: { ...json, authorization: `Bearer ${s.ceiling.key}` },
        body: chatBody("agentport/llm-bench", stream),
      },
    })),
  ];
}

/** The limiter's Redis work per limited request in the rounds: script calls (reservations and settlement batches) and Redis's CPU. */
function printRedisCalls(
  after: ScriptCalls,
  before: ScriptCalls,
  list: Pair[],
  results: Array<Rounds>,
  limitedUrl: string,
): void {
  let requests = 0;
  for (const [i, p] of list.entries())
    if (p.ours.url.startsWith(limitedUrl + "/")) requests += results[i].ours.reduce((n, m) => n + m.requests, 0);
  if (!requests) return;
  const calls = after.calls - before.calls;
  console.log(
    `\nlimits in Redis: ${calls} script calls for ${requests} limited requests, ${fixed(calls / requests, 3)} a request (counted by Redis, not timed); Redis's own CPU ${fixed((after.micros - before.micros) / requests, 1)} µs a request`,
  );
}

export async function run(): Promise<void> {
  buildArtifact();
  const upstream = await startChild<{ url: string }>(new URL("./chat-upstream.ts", import.meta.url));
  const env = benchEnv("built", upstream.info.url);
  const service = await startWarm("built", env);
  const key = createKey("built", env);
  // The limiter's cost: one more service whose keys are limited (far above the load) in Redis.
  const limitedEnv = {
    ...benchEnv("built", upstream.info.url),
    RATE_LIMIT_RPM: "1000000000",
    RATE_LIMIT_TPM: "2147483647",
    REDIS_URL: process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379",
  };
  const limited = await startWarm("built", limitedEnv);
  const limitedKey = createKey("built", limitedEnv);
  // The sources as `npm start` runs them, for the relay's goal on that path.
  const npmStartEnv = benchEnv("tsx", upstream.info.url);
  const npmStart = await startWarm("tsx", npmStartEnv);
  const npmStartKey = createKey("tsx", npmStartEnv);
  // Its spec-floor servers write an access line per request: into a pipe read into nothing, as the service's.
  const servers = await startChild<ChatServers>(
    new URL("./chat-servers.ts", import.meta.url),
    { BENCH_UPSTREAM: upstream.info.url, BENCH_SERVICE: service.url, BENCH_KEY: key },
    { discardStdout: true },
  );
  // The floor's handler behind the service's own pipeline, bundled as the artifact is; its log lines read into nothing.
  const ceilingBundle = await bundleLikeArtifact(new URL("./relay-ceiling.ts", import.meta.url), "relay-ceiling");
  const ceiling = await startChild<RelayCeiling>(
    pathToFileURL(ceilingBundle),
    { ...benchEnv("built", upstream.info.url), BENCH_UPSTREAM: upstream.info.url },
    { discardStdout: true, bundled: true },
  );
  const portkey = await startPortkey(upstream.info.url);
  // Each server's process by its origin (a prefix test would take port 4000 for 40001); the references share one child.
  const pids = new Map([service, npmStart, limited].map((r) => [new URL(r.url).origin, r.child.pid!]));
  pids.set(new URL(portkey.url).origin, portkey.process.pid!);
  pids.set(new URL(ceiling.info.url).origin, ceiling.process.pid!);
  const cpuOf = async (t: Target) => {
    const pid = pids.get(new URL(t.url).origin);
    return pid === undefined ? servers.cpu() : processCpuMicros(pid);
  };
  const measure = async (t: Target, seconds = SECONDS): Promise<Measured> => {
    const before = await cpuOf(t);
    const result = await load({
      url: t.url,
      method: t.method,
      headers: t.headers,
      body: t.body,
      seconds,
      connections: CONNECTIONS,
    });
    return { ...result, cpuMicros: (await cpuOf(t)) - before };
  };
  try {
    const all = pairs({
      ...servers.info,
      app: service.url,
      key,
      limited: limited.url,
      limitedKey,
      npmStart: npmStart.url,
      npmStartKey,
      ceiling: ceiling.info,
    });
    const list = all.filter((p) => PAIRS.test(p.what));
    const peerFailures = await addPortkey(portkey, list);
    console.log(
      `autocannon: ${CONNECTIONS} connections, ${SECONDS} s per target, ${ROUNDS} rounds alternating reference and agentport; loopback`,
    );
    for (const p of list) {
      await measure(p.reference, 1);
      if (p.floor) await measure(p.floor, 1);
      await measure(p.ours, 1);
      if (p.npmStart) await measure(p.npmStart, 1);
      if (p.ceiling) await measure(p.ceiling, 1);
      if (p.peer) await measure(p.peer, 1);
    }
    const redisBefore = await scriptCalls(limitedEnv.REDIS_URL);
    const results = list.map(() => ({
      reference: [] as Measured[],
      floor: [] as Measured[],
      ours: [] as Measured[],
      npmStart: [] as Measured[],
      ceiling: [] as Measured[],
      peer: [] as Measured[],
    }));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, p] of list.entries()) {
        results[i].reference.push(await measure(p.reference));
        if (p.floor) results[i].floor.push(await measure(p.floor));
        results[i].ours.push(await measure(p.ours));
        if (p.npmStart) results[i].npmStart.push(await measure(p.npmStart));
        if (p.ceiling) results[i].ceiling.push(await measure(p.ceiling));
        if (p.peer) results[i].peer.push(await measure(p.peer));
      }
    }
    const rows: string[][] = [];
    for (const [i, p] of list.entries()) {
      const ref = mean(results[i].reference);
      const ours = mean(results[i].ours);
      const ratio = ours.rps / ref.rps;
      const cpuRatio = ref.cpuPerRequest / ours.cpuPerRequest;
      const verdict = (r: number) => (r >= p.goal ? "ok" : "MISSED");
      rows.push([
        p.reference.name,
        fixed(ref.rps),
        fixed(ref.p50, 1),
        fixed(ref.p99, 1),
        fixed(ref.cpuPerRequest),
        "",
        "",
        "",
        "",
        String(ref.failures),
      ]);
      const floor = p.floor && mean(results[i].floor);
      if (p.floor && floor) {
        const floorRatio = floor.rps / ref.rps;
        const floorCpuRatio = ref.cpuPerRequest / floor.cpuPerRequest;
        const reach = (r: number) => (r >= p.goal ? "reachable" : "beyond reach");
        rows.push([
          p.floor.name,
          fixed(floor.rps),
          fixed(floor.p50, 1),
          fixed(floor.p99, 1),
          fixed(floor.cpuPerRequest),
          `${fixed(floorRatio, 2)} ${reach(floorRatio)}`,
          `${fixed(floorCpuRatio, 2)} ${reach(floorCpuRatio)}`,
          "",
          "",
          String(floor.failures),
        ]);
      }
      rows.push([
        p.ours.name,
        fixed(ours.rps),
        fixed(ours.p50, 1),
        fixed(ours.p99, 1),
        fixed(ours.cpuPerRequest),
        `${fixed(ratio, 2)} ${verdict(ratio)}`,
        `${fixed(cpuRatio, 2)} ${verdict(cpuRatio)}`,
        floor ? fixed(ours.rps / floor.rps, 2) : "",
        `≥ ${p.goal}`,
        String(ours.failures),
      ]);
      const npm = p.npmStart && mean(results[i].npmStart);
      if (p.npmStart && npm) {
        rows.push([
          p.npmStart.name,
          fixed(npm.rps),
          fixed(npm.p50, 1),
          fixed(npm.p99, 1),
          fixed(npm.cpuPerRequest),
          "",
          "",
          floor ? fixed(npm.rps / floor.rps, 2) : "",
          "",
          String(npm.failures),
        ]);
      }
      const top = p.ceiling && mean(results[i].ceiling);
      if (p.ceiling && top) {
        rows.push([
          p.ceiling.name,
          fixed(top.rps),
          fixed(top.p50, 1),
          fixed(top.p99, 1),
          fixed(top.cpuPerRequest),
          "",
          "",
          floor ? fixed(top.rps / floor.rps, 2) : "",
          "",
          String(top.failures),
        ]);
      }
    }
    console.log(
      table(
        [
          "target",
          "req/s",
          "p50 ms",
          "p99 ms",
          "CPU µs/req",
          "req/s ratio",
          "CPU ratio",
          "of floor",
          "goal",
          "failures",
        ],
        rows,
      ),
    );
    console.log(
      "CPU ratio: the reference's server CPU time per request over ours (the upstream stub's own CPU excluded).",
    );
    console.log(
      "spec floor: the reference plus a SHA-256 key lookup and one JSON access line per request, the duties the service owes every request, and for the proxy a parse of each answer it relays (a client gets JSON or an error, never a broken chunk); its ratios are the most any server keeping them reaches here, so a goal above them is beyond reach. of floor: our req/s over the floor's.",
    );

    printGoals(list, results, ROUNDS);
    printRedisCalls(await scriptCalls(limitedEnv.REDIS_URL), redisBefore, list, results, limited.url);

    comparePortkey(list, results, peerFailures);

    const chatAt = list.findIndex((p) => p.what === "synthetic JSON");
    if (chatAt >= 0) {
      const recordUs = usageRecordNanos() / 1000;
      const chatCpu = mean(results[chatAt].ours).cpuPerRequest;
      console.log(
        `\nusage accounting: ${fixed(recordUs * 1000)} ns per completion (in-process UsageMeter.record, 200 keys × 5 models)`,
      );
      console.log(
        `  = ${fixed((100 * recordUs) / chatCpu, 2)} % of ${list[chatAt].ours.name}'s ${fixed(chatCpu)} µs CPU per request: CPU ratio ${fixed((chatCpu - recordUs) / chatCpu, 4)} (without over with, as in the table)`,
      );
    }

    const stream = all.find((p) => p.what === "llm SSE")!;
    const [proxySamples, oursSamples] = await ttft(
      [stream.reference, stream.ours] as Array<Target & { body: string }>,
      TTFT_SAMPLES,
    );
    const p = (s: number[], q: number) => percentile(s, q);
    const added = p(oursSamples, 99) - p(proxySamples, 99);
    console.log(`\ntime to first content delta, llm stream, ${TTFT_SAMPLES} sequential requests each (ms)`);
    console.log(
      table(
        ["target", "p50", "p90", "p99"],
        [
          [
            stream.reference.name,
            fixed(p(proxySamples, 50), 2),
            fixed(p(proxySamples, 90), 2),
            fixed(p(proxySamples, 99), 2),
          ],
          [stream.ours.name, fixed(p(oursSamples, 50), 2), fixed(p(oursSamples, 90), 2), fixed(p(oursSamples, 99), 2)],
        ],
      ),
    );
    console.log(
      `added at p99: ${fixed(added, 2)} ms — ${added <= 1 ? "ok" : "MISSED"} (≤ 1 ms); added at p50: ${fixed(p(oursSamples, 50) - p(proxySamples, 50), 2)} ms`,
    );
  } finally {
    await portkey.stop();
    await ceiling.stop();
    await servers.stop();
    await stopService(service);
    await stopService(limited);
    await stopService(npmStart);
    await upstream.stop();
  }
}

/** Portkey's gateway as each llm pair's peer, where it serves the path; the paths it fails, with why. */
async function addPortkey(portkey: Portkey, list: Pair[]): Promise<Map<string, string>> {
  const failures = new Map<string, string>();
  for (const p of list) {
    if (!p.what.startsWith("llm ")) continue;
    const stream = p.what.endsWith("SSE");
    const body = chatBody("bench", stream);
    const name = `Portkey gateway ${stream ? "SSE" : "JSON"}`;
    const failure = await portkey.failure(body, stream);
    if (failure) failures.set(name, failure);
    else p.peer = { name, url: `${portkey.url}/v1/chat/completions`, headers: portkey.headers("bench"), body };
  }
  return failures;
}
