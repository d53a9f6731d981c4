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
}

/** `npm run plan -- --stack STACK --set …`: the plan as it will be once the stack file says so. */
async function planWith(stack: string, edits: string[]): Promise<JsonPlan> {
  const sets = edits.flatMap((e) => ["--set", e]);
  const { stdout } = await run("node", ["--import", "tsx", "infra/plan/cli.ts", "--stack", stack, ...sets, "--json"], {
    maxBuffer: 64 * 1024 * 1024,
    timeout: 300_000,
  });
  return JSON.parse(stdout) as JsonPlan;
}

const key = (r: JsonResource) => `${r.type}::${r.name}`;

/**
 * Per resource whose inputs differ: the top-level inputs that changed (secrets are masked alike, so
 * only their presence shows); `(created)` / `(deleted)` for a resource only one plan has.
 */
function changes(before: JsonPlan, after: JsonPlan): Record<string, string[]> {
  const previous = new Map(before.resources.map((r) => [key(r), r]));
  const next = new Map(after.resources.map((r) => [key(r), r]));
  const out: Record<string, string[]> = {};
  for (const [k] of previous) if (!next.has(k)) out[k] = ["(deleted)"];
  for (const r of after.resources) {
    const old = previous.get(key(r))?.inputs;
    if (!old) {
      out[key(r)] = ["(created)"];
      continue;
    }
    const fields = [...new Set([...Object.keys(old), ...Object.keys(r.inputs)])].filter(
      (f) => JSON.stringify(old[f]) !== JSON.stringify(r.inputs[f]),
    );
    if (fields.length) out[key(r)] = fields.sort();
  }
  return out;
}

const find = (plan: JsonPlan, type: string, name: string) =>
  plan.resources.find((r) => r.type === type && r.name === name)!;

/**
 * Day-N operations on staging-aws, planned before the stack file is edited: which resources each
 * one changes, and that every change to a protected resource is one the provider makes in place
 * (the fields below are updatable in @pulumi/aws: instance class, node type, host instance type,
 * engine version with allowMajorVersionUpgrade; a parameter group's family is not, and that group
 * is not protected). Staging applies immediately; prod waits for the maintenance window unless the
 * stack says otherwise.
 */
describe("day-N operations, planned (staging-aws)", () => {
  let base: JsonPlan;
  let resized: JsonPlan;
  let upgraded: JsonPlan;
  let rotated: JsonPlan;
  beforeAll(async () => {
    [base, resized] = await Promise.all([
      planWith("staging-aws", []),
      planWith("staging-aws", [
        "data.aws.postgresInstanceClass=db.r6g.large",
        "data.aws.vectorInstanceClass=db.r6g.large",
        "data.aws.cacheNodeType=cache.r6g.large",
        "data.aws.docdbInstanceClass=db.r6g.large",
        "data.aws.mqInstanceType=mq.m7g.large",
      ]),
    ]);
    [upgraded, rotated] = await Promise.all([
      planWith("staging-aws", ['data.aws.postgresVersion="17"', "data.aws.allowMajorVersionUpgrade=true"]),
      planWith("staging-aws", ["api.dbPasswordGeneration=1", "mq.auth.password={secure: v1:rotated}"]),
    ]);
  }, 600_000);

  it("applies every engine's changes at once on staging, and lets only a stack's switch cross a major version", () => {
    for (const [type, name] of [
      ["aws:rds/instance:Instance", "data-sqldb"],
      ["aws:rds/instance:Instance", "data-vectordb"],
      ["aws:elasticache/replicationGroup:ReplicationGroup", "data-cache"],
      ["aws:docdb/cluster:Cluster", "data-docdb"],
      ["aws:docdb/clusterInstance:ClusterInstance", "data-docdb-0"],
      ["aws:mq/broker:Broker", "data-mq"],
    ])
      expect(find(base, type, name).inputs.applyImmediately, name).toBe(true);
    expect(find(base, "aws:rds/instance:Instance", "data-sqldb").inputs.allowMajorVersionUpgrade).toBe(false);
    expect(find(base, "aws:docdb/cluster:Cluster", "data-docdb").inputs.allowMajorVersionUpgrade).toBe(false);
  });

  it("resizes each engine in place: only its size field changes, nothing else", () => {
    expect(changes(base, resized)).toEqual({
      "aws:rds/instance:Instance::data-sqldb": ["instanceClass"],
      "aws:rds/instance:Instance::data-vectordb": ["instanceClass"],
      "aws:elasticache/replicationGroup:ReplicationGroup::data-cache": ["nodeType"],
      "aws:docdb/clusterInstance:ClusterInstance::data-docdb-0": ["instanceClass"],
      "aws:mq/broker:Broker::data-mq": ["hostInstanceType"],
    });
  });

  it("upgrades PostgreSQL 16 to 17 with the new family's parameter groups (unprotected, replaced) in the same update", () => {
    expect(changes(base, upgraded)).toEqual({
      "aws:rds/parameterGroup:ParameterGroup::data-sqldb-params": ["family"],
      "aws:rds/instance:Instance::data-sqldb": ["allowMajorVersionUpgrade", "engineVersion"],
      "aws:rds/parameterGroup:ParameterGroup::data-vectordb-params": ["family"],
      "aws:rds/instance:Instance::data-vectordb": ["allowMajorVersionUpgrade", "engineVersion"],
      "aws:docdb/cluster:Cluster::data-docdb": ["allowMajorVersionUpgrade"],
    });
    expect(find(upgraded, "aws:rds/parameterGroup:ParameterGroup", "data-sqldb-params").inputs.family).toBe(
      "postgres17",
    );
    expect(find(upgraded, "aws:rds/parameterGroup:ParameterGroup", "data-sqldb-params").options.protect).toBe(false);
  });

  it("rotates the API's database password and the broker's: a new password for the idle login, the broker untouched", () => {
    expect(changes(base, rotated)).toEqual({
      "random:index/randomPassword:RandomPassword::api-db-password-b": ["keepers"],
      // A generated password gives way to the stack's own (`mq.auth.password`).
      "random:index/randomPassword:RandomPassword::secrets-mq": ["(deleted)"],
    });
    // The broker's users are read only at creation: a rotated platform password never replaces it.
    const broker = find(rotated, "aws:mq/broker:Broker", "data-mq");
    expect(broker.options).toMatchObject({ protect: true, ignoreChanges: ["users"] });
  });
});
