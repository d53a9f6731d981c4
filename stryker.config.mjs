// @ts-check
/**
 * Mutation testing (StrykerJS): each module below is mutated and run against the fast unit tests
 * of test/unit/ (vitest.unit.config.ts, no app and no database), so a mutant costs well under a
 * second. A mutant no test kills is a rule that could break silently: kill it with a test that
 * asserts an observable result, or list it as equivalent in docs/testing.md.
 *
 *   npm run mutate                                        every module below
 *   npm run mutate -- service/src/http/json-body.ts       one (scripts/mutate.mjs)
 *   npm run mutate -- --since origin/main                 the modules a change touches (CI)
 *
 * scripts/mutate.mjs also checks each module's own score against MIN_SCORE.
 */

/** The least mutation score (%) each module keeps. */
export const MIN_SCORE = 85;

/**
 * The modules, each a path or `path:fromLine-toLine` ranges. api-keys.ts: its checks only (the
 * secret's shape, the cache and when it is trusted, expiry, revocations racing a lookup, "last
 * used"); its SQL runs against PostgreSQL and PGlite in test/service/api-keys.test.ts. Update the
 * ranges when the file moves.
 */
export const MODULES = [
  "service/src/domain/limits/windows.ts",
  "service/src/domain/limits/estimate.ts",
  "service/src/domain/limits/key-limiter.ts",
  "service/src/domain/limits/metered-run.ts",
  "service/src/domain/limits/redis-windows.ts",
  "service/src/domain/limits/leased-windows.ts",
  [
    "service/src/domain/api-keys.ts:83-83",
    "service/src/domain/api-keys.ts:142-178",
    "service/src/domain/api-keys.ts:266-357",
  ],
  "service/src/http/json-body.ts",
  "infra/stack/rules-deploy.ts",
  "loadtest/harness/stats.ts",
  "loadtest/harness/verdict-rule.ts",
  "loadtest/harness/bootstrap.ts",
  "loadtest/harness/knee.ts",
  "service/src/domain/spend/cost.ts",
  "service/src/domain/spend/budget-period.ts",
  "service/src/domain/agents/circuit-breaker.ts",
  "service/src/domain/agents/retry-budget.ts",
  "service/src/routes/v1/organization/report-query.ts",
  // 91 %: what survives is a refusal a later check repeats (the text is refused either way) and the
  // head shortcut's guard (without it the shortcut is tried and declines).
  "service/src/domain/agents/answer-members.ts",
  // Its edges only: the statement runs against PostgreSQL and PGlite in test/service/spend/recorded-spend.test.ts.
  "service/src/domain/spend/recorded-spend.ts:14-32",
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  plugins: ["@stryker-mutator/vitest-runner"],
  // Threads and no isolation (vitest.unit.config.ts): half the cost of a fork per mutant.
  vitest: { configFile: "vitest.unit.config.ts", related: false, pool: "threads" },
  mutate: MODULES.flat(),
  coverageAnalysis: "perTest",
  reporters: ["clear-text", "progress-append-only", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  incrementalFile: "reports/stryker-incremental.json",
  tempDirName: ".stryker-tmp",
  // Two cores shared: one test process. The suite of a module runs in well under a second.
  concurrency: 1,
  timeoutMS: 5_000,
  clearTextReporter: { allowColor: false, logTests: false },
};
