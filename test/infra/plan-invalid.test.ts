import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { STACKS_DIR } from "../../infra/limits.js";
import { runPlan } from "../../infra/plan/run.js";

describe("plan: an invalid stack", () => {
  it("stops before any resource is declared and lists every problem by path", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stacks-"));
    const broken = readFileSync(join(STACKS_DIR, "Pulumi.local.yaml"), "utf8")
      .replace("language: en", "language: fr")
      .replace("provider: Minio", "provider: Minio\n    secret:\n      objstore:\n        FORCE_PATH_STYLE: false");
    writeFileSync(join(dir, "Pulumi.broken.yaml"), broken);
    const error = await runPlan("broken", dir).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/company\.language: must be one of: ja, en/);
    expect(error?.message).toMatch(/storage\.secret\.objstore\.FORCE_PATH_STYLE: must be "true"/);
  });
});
