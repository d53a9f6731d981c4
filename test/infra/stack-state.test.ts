import { describe, expect, it } from "vitest";
import { inClusterStateful } from "../../infra/stack/rules-lifecycle.js";
import { validateStack } from "../../infra/stack/validate.js";
import { STACKS, rawStack, specOf } from "./fixtures.js";

/** The paths validation reports for a stack edited by `edit`. */
function refused(stack: string, edit: (raw: Record<string, any>) => void): string[] {
  const raw = rawStack(stack);
  edit(raw);
  const v = validateStack(raw, {});
  return v.ok ? [] : v.issues.map((i) => i.path);
}

describe("a stack with state: edits that drop data or that a provider refuses are named before any resource", () => {
  it("each committed stack's recorded state matches what it deploys", () => {
    for (const stack of STACKS) {
      const spec = specOf(stack);
      const state = spec.platform.state;
      if (state) expect(inClusterStateful(spec), stack).toEqual(state.inCluster);
    }
  });

  it("refuses turning off an in-cluster component the release holds, until the stack acknowledges it", () => {
    expect(refused("prod-azure", (r) => (r.data.mq = "external"))).toContain("data.mq");
    expect(refused("prod-aws", (r) => (r.monitoring = { ...r.monitoring, enabled: false }))).toEqual([
      "monitoring.enabled",
    ]);
    expect(
      refused("prod-aws", (r) => {
        r.monitoring = { ...r.monitoring, enabled: false };
        r.platform.acknowledge = ["monitoring"];
      }),
    ).toEqual([]);
    // A stack without recorded state (a first `up`) may choose freely.
    expect(
      refused("prod-aws", (r) => {
        r.monitoring = { ...r.monitoring, enabled: false };
        delete r.platform.state;
      }),
    ).toEqual([]);
  });

  it("names the changes a provider refuses: MQ deployment mode, geo-redundant backup after creation, fewer DocumentDB instances", () => {
    expect(refused("prod-aws", (r) => (r.data.aws.multiAz = false))).toContain("data.aws.multiAz");
    expect(refused("prod-azure", (r) => (r.data.azure.postgresGeoRedundantBackup = false))).toEqual([
      "data.azure.postgresGeoRedundantBackup",
    ]);
    expect(refused("prod-aws", (r) => (r.data.aws.docdbInstances = 2))).toEqual(["data.aws.docdbInstances"]);
    expect(
      refused("prod-aws", (r) => {
        r.data.aws.docdbInstances = 2;
        r.platform.acknowledge = ["docdbInstances"];
      }),
    ).toEqual([]);
    // Growing is what the providers do in place.
    expect(refused("prod-aws", (r) => (r.data.aws.docdbInstances = 4))).toEqual([]);
  });

  it("asks an Azure stack with state for its deployed PostgreSQL servers' names (their grown disks are read from them), not a first create", () => {
    const message = (edit: (raw: Record<string, any>) => void) => {
      const raw = rawStack("prod-azure");
      edit(raw);
      const v = validateStack(raw, {});
      return v.ok ? [] : v.issues.map((i) => `${i.path}: ${i.message}`);
    };
    const missing = message((r) => delete r.platform.state.postgresServers.vectordb);
    expect(missing).toEqual([expect.stringMatching(/^platform\.state\.postgresServers\.vectordb: .*data-vectordb/)]);
    expect(missing[0]).toContain('az postgres flexible-server list -g rg-agentport-prod --query "[].name" -o tsv');
    expect(refused("prod-azure", (r) => delete r.platform.state)).toEqual([]);
    // An in-cluster vector store has no server to name.
    expect(
      refused("prod-azure", (r) => {
        delete r.platform.state.postgresServers.vectordb;
        r.data.vectordb = "inCluster";
        r.platform.state.inCluster.push("vectordb");
      }),
    ).toEqual([]);
    expect(refused("prod-azure", (r) => (r.platform.state.postgresServers.sqldb = "Data_SqlDb"))).toEqual([
      "platform.state.postgresServers.sqldb",
    ]);
  });
});
