/**
 * An on-premises cluster using the S3 provider with buckets that exist (the reference's storage
 * table allows S3 in every environment): the onprem stack with its storage switched to them.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { releaseValues } from "../../infra/plan/format.js";
import { isSecretEnvelope, runPlan, type Plan } from "../../infra/plan/run.js";
import { STACKS_DIR } from "../../infra/limits.js";
import { loadStackSpec } from "../../infra/stack/load.js";
import { at, types } from "./plan-helpers.js";

const BUCKETS = {
  BUCKET: "corp-agents-main",
  PUBLIC_BUCKET: "corp-agents-public",
  EXPORT_PROJECT_BUCKET: "corp-agents-export",
  ULTRON_BUCKET: "corp-agents-ultron",
};
/** No `existingBuckets`: with `cloud.provider: none` the buckets can only be the operator's. */
const STORAGE = {
  provider: "S3",
  secret: {
    cloudb: {
      ACCESS_KEY_ID: { secure: "v1:set-with-pulumi-config-set-secret" },
      SECRET_ACCESS_KEY: { secure: "v1:set-with-pulumi-config-set-secret" },
      ...BUCKETS,
    },
  },
};

/** The onprem stack file with `agentport:storage` replaced and the objstore gone. */
function onpremWith(storage: unknown): string {
  const doc = parseDocument(readFileSync(join(STACKS_DIR, "Pulumi.onprem.yaml"), "utf8"));
  doc.setIn(["config", "agentport:storage"], storage);
  // The in-cluster objstore and its console go with the Minio provider.
  doc.deleteIn(["config", "agentport:objstore"]);
  doc.deleteIn(["config", "agentport:ingress", "objstore"]);
  return doc.toString();
}

const unwrap = (v: unknown): unknown => (isSecretEnvelope(v) ? unwrap(v.value) : v);

let plan: Plan;
let values: Record<string, unknown>;
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "stacks-"));
  writeFileSync(join(dir, "Pulumi.onprem-s3.yaml"), onpremWith(STORAGE));
  plan = await runPlan("onprem-s3", dir);
  values = unwrap(releaseValues(plan)!.values) as Record<string, unknown>;
}, 120_000);

describe("plan: onprem with existing S3 buckets", () => {
  it("is accepted: no cloud account needed for buckets that exist", () => {
    expect(plan.resources.length).toBeGreaterThan(0);
  });
  it("creates no bucket and no cloud resource at all", () => {
    expect(types(plan).filter((t) => t.startsWith("aws:") || t.startsWith("azure-native:"))).toEqual([]);
  });
  it("renders the bucket names given, in the reference's region, with the S3 provider", () => {
    expect(at(values, "storage.provider")).toBe("S3");
    expect(unwrap(at(values, "storage.secret.cloudb"))).toMatchObject({ ...BUCKETS, REGION: "ap-northeast-1" });
    expect(at(values, "ultron.env.STORAGE_DISK")).toBe("s3");
  });
  it("is refused with the keys missing, naming them (no IAM user can be made off AWS)", () => {
    const dir = mkdtempSync(join(tmpdir(), "stacks-"));
    writeFileSync(join(dir, "Pulumi.onprem-s3.yaml"), onpremWith({ ...STORAGE, secret: { cloudb: BUCKETS } }));
    expect(() => loadStackSpec("onprem-s3", dir)).toThrow(
      /storage\.secret\.cloudb\.ACCESS_KEY_ID[\s\S]*storage\.secret\.cloudb\.SECRET_ACCESS_KEY/,
    );
  });
});
