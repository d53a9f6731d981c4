import { beforeAll, describe, expect, it } from "vitest";
import { runPlan, type Plan } from "../../infra/plan/run.js";
import { validateStack } from "../../infra/stack/validate.js";
import { STANDIN_PREFIX } from "../../infra/stack/sensitive.js";
import { expectNoPlaintextSecrets } from "./plan-helpers.js";
import { rawStack } from "./fixtures.js";

const KEYS = {
  storage: "storage.secret.clouda.STORAGE_ACCESS_KEY",
  redis: "data.azure.redisAccessKey",
  cosmos: "data.azure.cosmosConnectionString",
};
const standIn = (path: string) => `${STANDIN_PREFIX}agentport:${path}`;

/** prod-azure with only the given data-plane keys, as `secure:` entries (their stand-ins). */
function withKeys(paths: string[], edit: (raw: Record<string, any>) => void = () => {}): string[] {
  const raw = rawStack("prod-azure");
  for (const path of Object.values(KEYS)) {
    const parts = path.split(".");
    let node = raw;
    for (const p of parts.slice(0, -1)) node = node[p] ??= {};
    if (paths.includes(path)) node[parts.at(-1)!] = standIn(path);
    else delete node[parts.at(-1)!];
  }
  edit(raw);
  const v = validateStack(raw, {});
  return v.ok ? [] : v.issues.map((i) => `${i.path}: ${i.message}`);
}

describe("Azure data-plane keys given as config: all of them or none", () => {
  it("takes the whole set, and none", () => {
    expect(withKeys(Object.values(KEYS))).toEqual([]);
    expect(withKeys([])).toEqual([]);
  });
  it("refuses half a set, naming each missing key", () => {
    expect(withKeys([KEYS.redis])).toEqual([
      expect.stringMatching(
        /^storage\.secret\.clouda\.STORAGE_ACCESS_KEY: is required once data\.azure\.redisAccessKey is given/,
      ),
      expect.stringMatching(
        /^data\.azure\.cosmosConnectionString: is required once data\.azure\.redisAccessKey is given/,
      ),
    ]);
    expect(withKeys([KEYS.storage, KEYS.cosmos]).map((m) => m.split(":")[0])).toEqual([KEYS.redis]);
  });
  it("counts only the keys the stack would list (an in-cluster cache has none), and refuses one it would not use", () => {
    const inClusterCache = (r: Record<string, any>) => {
      r.data.cache = "inCluster";
      r.platform.state.inCluster.push("cache");
    };
    expect(withKeys([KEYS.storage, KEYS.cosmos], inClusterCache)).toEqual([]);
    expect(withKeys(Object.values(KEYS), inClusterCache)).toEqual([
      `${KEYS.redis}: is used only when data.cache is managed on azure: remove it`,
    ]);
  });
  it("refuses them in plaintext, and a connection string that is not the primary MongoDB one", () => {
    const plain = withKeys([KEYS.storage, KEYS.cosmos], (r) => (r.data.azure.redisAccessKey = "abc"));
    expect(plain).toEqual([expect.stringMatching(/^data\.azure\.redisAccessKey: is a secret/)]);
    const wrong = withKeys([KEYS.storage, KEYS.redis], (r) => {
      r.data.azure.cosmosConnectionString = "AccountEndpoint=https://x.documents.azure.com:443/;AccountKey=k";
    });
    // The plaintext refusal names the path; the format refusal never repeats the value.
    expect(
      wrong.some((m) => m.startsWith(`${KEYS.cosmos}: must be the account's "Primary MongoDB Connection String"`)),
    ).toBe(true);
    expect(wrong.join("\n")).not.toContain("AccountKey=k");
  });
});

describe("plan: prod-azure, its data-plane keys given as config (a preview that lists no key)", () => {
  let plan: Plan;
  beforeAll(async () => {
    plan = await runPlan("prod-azure");
  }, 300_000);

  it("invokes no listKeys, listRedisKeys or listConnectionStrings at all", () => {
    const tokens = plan.invokes.map((c) => c.token);
    expect(tokens.filter((t) => /:list/.test(t))).toEqual([]);
    // The grown-disk reads remain: a control-plane GET, which Reader allows.
    expect(tokens).toEqual(["azure-native:dbforpostgresql:getServer", "azure-native:dbforpostgresql:getServer"]);
  });
  it("hands the given values on as secrets only, never in plaintext", () => {
    const json = JSON.stringify(plan.resources);
    for (const path of Object.values(KEYS)) expect(json, path).toContain(standIn(path));
    expectNoPlaintextSecrets(plan);
  });
});
