import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);

interface JsonResource {
  type: string;
  name: string;
  inputs: Record<string, any>;
  options: { protect: boolean; ignoreChanges: string[] };
}
interface JsonPlan {
  resources: JsonResource[];
  invokes: Array<{ token: string; inputs: Record<string, unknown> }>;
}

/** prod-azure planned with `edits`, its deployed servers' disks grown to `liveGb` by Azure (autoGrow). */
async function planGrown(liveGb: number, edits: string[]): Promise<JsonPlan> {
  const sets = edits.flatMap((e) => ["--set", e]);
  const { stdout } = await run(
    "node",
    ["--import", "tsx", "infra/plan/cli.ts", "--stack", "prod-azure", ...sets, "--json"],
    { env: { ...process.env, PLAN_POSTGRES_LIVE_GB: String(liveGb) }, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 },
  );
  return JSON.parse(stdout) as JsonPlan;
}

const SERVER = "azure-native:dbforpostgresql:Server";
const servers = (plan: JsonPlan) => plan.resources.filter((r) => r.type === SERVER);
const serverReads = (plan: JsonPlan) =>
  plan.invokes.filter((c) => c.token === "azure-native:dbforpostgresql:getServer").map((c) => c.inputs.serverName);

/**
 * azure-native updates a flexible server with a PUT of every input, and Azure refuses a disk size
 * below the one autoGrow reached: a plain `pulumi up` must send the live size (or a larger one the
 * stack asks for), and a first create, which has no server to read, the stack's.
 */
describe("Azure PostgreSQL after autoGrow: a plain up sends the grown disk size", () => {
  let before: JsonPlan;
  let haChange: JsonPlan;
  let grownOnPurpose: JsonPlan;
  let firstCreate: JsonPlan;
  beforeAll(async () => {
    [before, haChange] = await Promise.all([
      planGrown(256, []),
      planGrown(256, ["data.azure.postgresHighAvailability=SameZone"]),
    ]);
    [grownOnPurpose, firstCreate] = await Promise.all([
      planGrown(256, ["data.azure.postgresStorageGb=512"]),
      // A new stack, and one not given the data-plane keys: it lists them from Azure.
      planGrown(256, [
        "platform.state=~",
        "storage.secret.clouda.STORAGE_ACCESS_KEY=~",
        "data.azure.redisAccessKey=~",
        "data.azure.cosmosConnectionString=~",
      ]),
    ]);
  }, 600_000);

  it("reads each deployed server the stack names, and nothing ignores the size any more", () => {
    expect(serverReads(haChange)).toEqual(["data-sqldb4c1e9a2", "data-vectordb7f03b6d"]);
    for (const s of servers(haChange)) expect(s.options.ignoreChanges, s.name).toEqual([]);
  });

  it("an HA change on a grown server sends the grown size, and changes nothing else of the server", () => {
    for (const s of servers(haChange)) {
      expect(s.inputs.storage, s.name).toEqual({ autoGrow: "Enabled", storageSizeGB: 256 });
      expect(s.inputs.highAvailability, s.name).toMatchObject({ mode: "SameZone" });
      const old = servers(before).find((b) => b.name === s.name)!;
      expect({ ...old.inputs, highAvailability: s.inputs.highAvailability }, s.name).toEqual(s.inputs);
      expect(s.options.protect, s.name).toBe(true);
    }
  });

  it("a size the stack raises above the live one is sent (a deliberate grow)", () => {
    for (const s of servers(grownOnPurpose)) expect(s.inputs.storage.storageSizeGB, s.name).toBe(512);
  });

  it("a first create reads no server and creates the stack's size", () => {
    expect(serverReads(firstCreate)).toEqual([]);
    expect(firstCreate.invokes.map((c) => c.token).sort()).toEqual([
      "azure-native:cosmosdb:listDatabaseAccountConnectionStrings",
      "azure-native:redis:listRedisKeys",
      "azure-native:storage:listStorageAccountKeys",
    ]);
    for (const s of servers(firstCreate)) expect(s.inputs.storage.storageSizeGB, s.name).toBe(64);
  });
});
