/** The pack in the repository, run as the Pulumi CLI runs it (analyzer.ts). */
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pb, startPack, type RunningPack } from "./analyzer.js";

const require = createRequire(import.meta.url);

/** How the engine spells a string it cannot know at preview. */
const UNKNOWN_STRING = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

let pack: RunningPack;
beforeAll(async () => {
  pack = await startPack(require.resolve("@pulumi/pulumi/cmd/run-policy-pack"), "infra/policy");
}, 90_000);
afterAll(() => pack?.stop());

describe("the policy pack, run as the Pulumi CLI runs it", () => {
  it("loads and lists its policies, each mandatory", async () => {
    const info = await pack.info();
    expect(info.name).toBe("agentport");
    expect(info.policies.map((p) => p[0])).toEqual([
      "no-placeholder-values",
      "no-placeholder-image-digest",
      "secret-lengths",
      "stateful-resources-protected",
      "managed-endpoints-tls",
      "cloudb-bucket-region",
      "storage-not-public",
    ]);
    expect(new Set(info.policies.map((p) => p[1]))).toEqual(new Set([pb.EnforcementLevel.MANDATORY]));
  });

  it("refuses an unprotected database, naming it", async () => {
    const found = await pack.analyze("aws:rds/instance:Instance", "data-sqldb", { engine: "postgres" }, false);
    expect(found).toEqual([
      {
        policy: "stateful-resources-protected",
        message: expect.stringContaining("data-sqldb"),
        level: pb.EnforcementLevel.MANDATORY,
      },
    ]);
  });

  it("checks the known secrets of a release while others are still unknown", async () => {
    const values = { jwt: { secret: "short" }, credentials: { boost: { SERVICE_BOOST_API_KEY_MAIN: UNKNOWN_STRING } } };
    const found = await pack.analyze("kubernetes:helm.sh/v3:Release", "platform-chart", { values }, true);
    expect(found).toEqual([
      {
        policy: "secret-lengths",
        message: expect.stringMatching(/platform-chart.*values\.jwt\.secret is 5 characters.*at least 64/),
        level: pb.EnforcementLevel.MANDATORY,
      },
    ]);
  });
});
