import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

/**
 * Run in a child: log one line through pino into the batched stdout, ask pino to flush, and die by
 * SIGKILL in the flush's callback (no exit handler runs). The line survives only if the flush wrote it.
 */
const SCRIPT = `
import pino from "pino";
import { batchedStdout } from "./service/src/http/log-destination.ts";
const log = pino({}, batchedStdout());
log.info("the server is up");
log.flush(() => process.kill(process.pid, "SIGKILL"));
`;

describe("the batched log destination", () => {
  it("writes what is batched when pino is asked to flush (the startup lines), without waiting for the batch or the timer", () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", SCRIPT], {
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(run.signal).toBe("SIGKILL");
    expect(run.stdout).toContain('"msg":"the server is up"');
  });
});
