import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { readStackFile } from "../../infra/plan/stack-file.js";

const run = promisify(execFile);

interface JsonPlan {
  resources: Array<{ type: string; name: string; inputs: Record<string, unknown> }>;
}

/** Each stack's program runs in a process of its own (the program runs once per process). */
async function jsonPlan(stack: string): Promise<JsonPlan> {
  const { stdout } = await run("node", ["--import", "tsx", "infra/plan/cli.ts", "--stack", stack, "--json"], {
    maxBuffer: 64 * 1024 * 1024,
    timeout: 240_000,
  });
  return JSON.parse(stdout) as JsonPlan;
}

/** Inputs that name an AWS resource itself, unique per account (and region): a second stack setting the same value fails to create it. */
const NAME_INPUTS = [
  "name",
  "namePrefix",
  "bucketPrefix",
  "identifier",
  "identifierPrefix",
  "replicationGroupId",
  "brokerName",
  "finalSnapshotIdentifier",
  "snapshotName",
];
/** Inputs that are a resource's own name only on these types (elsewhere they reference another resource). */
const OWN_NAME_BY_TYPE: Record<string, string[]> = {
  "aws:s3/bucket:Bucket": ["bucket"],
  "aws:docdb/cluster:Cluster": ["clusterIdentifier"],
};
/** Names scoped inside another resource (a role's or user's inline policy), not the account. */
const SCOPED_TYPES = new Set(["aws:iam/rolePolicy:RolePolicy", "aws:iam/userPolicy:UserPolicy"]);

function physicalNames(plan: JsonPlan): Map<string, string> {
  const names = new Map<string, string>();
  for (const r of plan.resources) {
    if (!r.type.startsWith("aws:") || SCOPED_TYPES.has(r.type)) continue;
    for (const key of [...NAME_INPUTS, ...(OWN_NAME_BY_TYPE[r.type] ?? [])]) {
      const value = r.inputs[key];
      if (typeof value === "string") names.set(`${r.type} ${key}=${value}`, r.name);
    }
  }
  return names;
}

describe("two AWS stacks in one account and region (staging-aws, prod-aws)", () => {
  let staging: JsonPlan;
  let prod: JsonPlan;
  beforeAll(async () => {
    [staging, prod] = await Promise.all([jsonPlan("staging-aws"), jsonPlan("prod-aws")]);
  }, 300_000);

  it("declare the same account and region", () => {
    const where = (stack: string) => {
      const c = readStackFile(stack).config;
      return { region: c["aws:region"], accounts: c["aws:allowedAccountIds"] };
    };
    expect(where("staging-aws")).toEqual(where("prod-aws"));
  });

  it("name no AWS resource alike: each creates its own ECR repository, buckets, instances and snapshots", () => {
    const a = physicalNames(staging);
    const b = physicalNames(prod);
    // The check sees the explicitly named resources (the rest get a random suffix from Pulumi).
    expect([...a.keys()].some((k) => k.startsWith("aws:ecr/repository:Repository name="))).toBe(true);
    expect([...a.keys()].filter((k) => k.startsWith("aws:s3/bucket:Bucket"))).toHaveLength(4);
    expect([...a.keys()].filter((k) => k.startsWith("aws:rds/instance:Instance"))).not.toHaveLength(0);
    expect([...a.keys()].filter((k) => b.has(k))).toEqual([]);
    expect(a.get("aws:ecr/repository:Repository name=agentport/staging-aws/api")).toBe("api-image-repo");
    expect(b.get("aws:ecr/repository:Repository name=agentport/prod-aws/api")).toBe("api-image-repo");
  });
});
