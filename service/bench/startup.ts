/**
 * Bench section "startup": the production build (`node dist/server.js`) started for real.
 * - cold start on a warm data dir (spawn to "Server listening"), goal ≤ 3 s, and idle RSS;
 * - first start on an empty data dir: time and peak RSS (VmHWM);
 * - the embedded store's first start alone, by initdb and from the prebuilt template, in
 *   separate processes of the same run (store-first-start.ts).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  benchEnv,
  buildArtifact,
  peakRssMb,
  rssMb,
  startService,
  startWarm,
  stopService,
} from "./lib/service-process.js";

const COLD_START_GOAL_MS = 3000;
const mark = (ok: boolean) => (ok ? "ok" : "MISSED");

function storeFirstStart(templateDir: string): { ms: number; peakMb: number } {
  const out = execFileSync(process.execPath, ["--import", "tsx", "service/bench/store-first-start.ts", templateDir]);
  return JSON.parse(out.toString()) as { ms: number; peakMb: number };
}

export async function run(): Promise<void> {
  buildArtifact();
  const env = benchEnv("built", "http://127.0.0.1:9/v1"); // no upstream is called at start

  const first = await startService("built", env);
  const firstPeak = peakRssMb(first.child.pid!);
  await stopService(first);
  const warm = await startWarm("built", env);
  await new Promise((res) => setTimeout(res, 1000));
  const idle = rssMb(warm.child.pid!);
  await stopService(warm);
  rmSync(env.DATA_DIR, { recursive: true, force: true });

  console.log(
    `  cold start, warm data dir: ${warm.startMs.toFixed(0)} ms (goal ≤ ${COLD_START_GOAL_MS} ms) ${mark(warm.startMs <= COLD_START_GOAL_MS)}; idle RSS ${idle.toFixed(0)} MB`,
  );
  console.log(`  first start, empty data dir: ${first.startMs.toFixed(0)} ms, peak RSS ${firstPeak.toFixed(0)} MB`);

  const none = mkdtempSync(join(tmpdir(), "agentport-bench-no-template-"));
  const initdb = storeFirstStart(none);
  const template = storeFirstStart("dist");
  rmSync(none, { recursive: true });
  console.log(
    `  embedded store's first start: initdb ${initdb.ms.toFixed(0)} ms, peak ${initdb.peakMb.toFixed(0)} MB; template ${template.ms.toFixed(0)} ms, peak ${template.peakMb.toFixed(0)} MB (${(template.peakMb / initdb.peakMb).toFixed(2)} of initdb's peak, ${(template.ms / initdb.ms).toFixed(2)} of its time)`,
  );
}
