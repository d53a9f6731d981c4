#!/usr/bin/env node
/**
 * `npm run mutate`: mutation testing of the modules in stryker.config.mjs, each against the fast
 * unit tests of test/unit/, then each module's own score checked against MIN_SCORE (Stryker's
 * `thresholds.break` judges the run's total only).
 *
 *   npm run mutate                                     every module
 *   npm run mutate -- loadtest/harness/stats.ts        the named modules (their configured ranges);
 *                                                      `--mutate a.ts,b.ts` says the same
 *   npm run mutate -- --since origin/main              the modules a change touches: the module or
 *                                                      its unit test changed since the merge base;
 *                                                      nothing to do when none did
 *   --max-minutes N (default 20)                       the run is stopped, and fails, past N minutes
 *   --concurrency N (default 1)                        test processes (CI: 2, the machine is its own then)
 *   --ignore-static                                    skip static mutants (code run once, at import: a
 *                                                      module's constants), each of which reloads the
 *                                                      module: 8 % of the mutants, 55 % of the time
 *   --no-check                                         report the scores, fail on none
 *
 * Runs in Stryker's incremental mode: a mutant whose code and tests did not change since the last
 * run (reports/stryker-incremental.json) keeps its result without being run again.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import config, { MIN_SCORE, MODULES } from "../stryker.config.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    since: { type: "string" },
    "max-minutes": { type: "string", default: "20" },
    "no-check": { type: "boolean", default: false },
    concurrency: { type: "string", default: "1" },
    "ignore-static": { type: "boolean", default: false },
    // Stryker's own spelling, for the same thing as a positional: `--mutate a.ts,b.ts`.
    mutate: { type: "string", multiple: true, default: [] },
  },
});
const named = [...positionals, ...values.mutate.flatMap((m) => m.split(","))];

/** A module's file, and the patterns Stryker is given for it (its ranges, or the file). */
const modules = MODULES.map((m) => {
  const patterns = [m].flat();
  return { file: patterns[0].replace(/:[\d-]+$/, ""), patterns };
});
/** The unit test file of a module: test/unit/ mirrors the source tree. */
const unitTestOf = (file) => join("test/unit", file.replace(/\.ts$/, ".test.ts"));

function changedSince(base) {
  const git = (...args) => execFileSync("git", args, { cwd: root, encoding: "utf8" });
  let mergeBase;
  try {
    mergeBase = git("merge-base", base, "HEAD").trim();
  } catch {
    // A shallow or short history (CI's clone): no base, nothing to compare against.
    console.log(`mutate: ${base} is not in this clone's history: nothing to compare against`);
    process.exit(0);
  }
  const committed = git("diff", "--name-only", mergeBase, "HEAD").split("\n");
  const uncommitted = git("diff", "--name-only", "HEAD").split("\n");
  return new Set([...committed, ...uncommitted].filter(Boolean));
}

let chosen;
if (values.since) {
  const changed = changedSince(values.since);
  chosen = modules.filter((m) => changed.has(m.file) || changed.has(unitTestOf(m.file)));
  if (chosen.length === 0) {
    console.log(`mutate: no module of stryker.config.mjs or its unit test changed since ${values.since}`);
    process.exit(0);
  }
} else if (named.length > 0) {
  chosen = named.map((file) => modules.find((m) => m.file === file) ?? { file, patterns: [file] });
} else chosen = modules;

const maxMs = Number(values["max-minutes"]) * 60_000;
console.log(`mutate: ${chosen.map((m) => m.file).join(", ")} (at most ${values["max-minutes"]} min)`);
const stryker = spawn(
  process.execPath,
  [
    join(root, "node_modules/@stryker-mutator/core/bin/stryker.js"),
    "run",
    "--incremental",
    "--mutate",
    chosen.flatMap((m) => m.patterns).join(","),
    "--concurrency",
    values.concurrency,
    ...(values["ignore-static"] ? ["--ignoreStatic"] : []),
  ],
  { cwd: root, stdio: "inherit", detached: true },
);
let timedOut = false;
const timer = setTimeout(() => {
  timedOut = true;
  process.kill(-stryker.pid, "SIGTERM");
}, maxMs);
const code = await new Promise((resolve) => stryker.on("exit", (c) => resolve(c ?? 1)));
clearTimeout(timer);
if (timedOut) {
  console.error(`mutate: stopped after ${values["max-minutes"]} min: the modules were not measured`);
  process.exit(1);
}
if (code !== 0) process.exit(code);

// Each module's own score, from the JSON report: killed and timed out over every mutant that ran
// or had no test (Stryker's mutation score; equivalent mutants are listed in docs/testing.md).
const report = JSON.parse(readFileSync(join(root, config.jsonReporter.fileName), "utf8"));
let failed = false;
for (const m of chosen) {
  const mutants = report.files[m.file]?.mutants ?? [];
  const count = (...statuses) => mutants.filter((x) => statuses.includes(x.status)).length;
  const detected = count("Killed", "Timeout");
  const valid = detected + count("Survived", "NoCoverage");
  const score = valid === 0 ? 100 : (100 * detected) / valid;
  const low = score < MIN_SCORE;
  failed ||= low;
  console.log(
    `mutate: ${m.file} ${score.toFixed(2)}% (${detected} of ${valid} killed)${low ? ` below ${MIN_SCORE}%` : ""}`,
  );
}
if (failed && !values["no-check"]) process.exit(1);
if (!existsSync(join(root, config.incrementalFile))) console.log("mutate: no incremental file was written");
