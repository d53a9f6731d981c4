/**
 * Bench section "capacity": how each cost grows with the work, on the production build. For each
 * dimension, per-request p50/p99, CPU per request and memory at three or more sizes, with the
 * growth exponents fitted (log-log least squares; goal: latency flat, exponent ≤ 0.1). The store
 * dimensions run on a throwaway database of the local PostgreSQL server (BENCH_CAPACITY_PG_URL's
 * server, as TEST_DATABASE_URL names it for the tests), filled by generate_series in the server.
 *
 * `npm run bench -- --only capacity` runs the sizes; add `--quick` for a tenth of each
 * (a smoke run), `--dim keys` (streams, keys, files, usage, responses, sizing) for one dimension. Sizing
 * (what one pod with the stack's default requests sustains) uses the streams dimension's figures
 * when both run in one invocation: `--dim streams,sizing`.
 */
import * as files from "./capacity/files.js";
import * as keys from "./capacity/keys.js";
import * as responses from "./capacity/responses.js";
import * as sizing from "./capacity/sizing.js";
import * as streams from "./capacity/streams.js";
import * as usage from "./capacity/usage.js";
import { buildArtifact } from "./lib/service-process.js";

const quick = process.argv.includes("--quick");
/** BENCH_CAPACITY_SIZES (comma-separated): these sizes instead, for one point re-measured (with --dim). */
const sizesOverride = process.env.BENCH_CAPACITY_SIZES?.split(",").map(Number);
const scale = (sizes: number[]) =>
  sizesOverride ?? (quick ? sizes.map((n) => Math.max(10, Math.round(n / 10))) : sizes);
const SAMPLES = Number(process.env.BENCH_CAPACITY_SAMPLES ?? (quick ? 60 : 200));

const DIMENSIONS = {
  streams: () => streams.run(scale([100, 1_000, 5_000])),
  usage: () => usage.run(scale([10_000, 1_000_000, 10_000_000]), SAMPLES),
  keys: () => keys.run(scale([1_000, 100_000, 1_000_000]), SAMPLES),
  files: () => files.run(scale([1_000, 10_000, 50_000]), SAMPLES),
  responses: () => responses.run(scale([10_000, 100_000, 1_000_000]), SAMPLES),
  sizing: () => sizing.run(),
} as const;

export async function run(): Promise<void> {
  const dimAt = process.argv.indexOf("--dim");
  const only = dimAt >= 0 ? process.argv[dimAt + 1] : undefined;
  const chosen = only?.split(",");
  if (chosen?.some((d) => !(d in DIMENSIONS))) {
    console.log(`  --dim takes one of: ${Object.keys(DIMENSIONS).join(", ")}`);
    return;
  }
  buildArtifact();
  console.log(
    `  sizes: ${quick ? "a tenth of the issue's (--quick)" : "the issue's"}; ${SAMPLES} sequential requests a point`,
  );
  const verdicts: string[] = [];
  for (const [name, dimension] of Object.entries(DIMENSIONS)) {
    if (chosen && !chosen.includes(name)) continue;
    console.log(`\n  [${name}]`);
    const started = Date.now();
    const flat = await dimension();
    verdicts.push(`${name} ${flat ? "ok" : "MISSED"}`);
    console.log(`    (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
  console.log(`\n  per-request latency flat (exponent ≤ 0.1): ${verdicts.join(", ")}`);
}
