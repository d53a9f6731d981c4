import { defineConfig } from "vitest/config";

/**
 * The fast unit tests of pure logic (test/unit/, mirroring the source tree): no app, no database,
 * no gateway, so the whole set runs in seconds and one mutant of Stryker's costs well under a
 * second (stryker.config.mjs). `npm test` runs them too, with everything else.
 */
export default defineConfig({
  test: {
    include: ["test/unit/**/*.test.ts"],
    testTimeout: 10_000,
    // No test keeps global state: files share one worker's modules, which halves a mutant's cost.
    isolate: false,
    globalSetup: ["test/unit/setup/executable-bits.ts"],
  },
});
