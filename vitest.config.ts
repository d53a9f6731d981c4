import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: files run in parallel processes, tests inside a file run in order.
    pool: "forks",
    // What the suite needs on a fresh machine: a PostgreSQL server (a private one when none
    // answers), nginx and chromium (installed when missing).
    globalSetup: ["test/setup/postgres.ts", "test/setup/nginx.ts", "test/setup/chromium.ts"],
  },
});
