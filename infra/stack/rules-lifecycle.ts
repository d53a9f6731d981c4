/**
 * What a deployment needs to live past its first `up`, checked before any resource is declared:
 * the DocumentDB CA the release delivers itself (the platform's pods fail TLS without it, and an
 * atomic install then uninstalls everything), and, on a stack with state, the edits that would
 * drop a stateful component or that a provider refuses.
 */
import { accessSync, constants } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DOCDB_CA_POSTRENDERER } from "../platform/postrender/docdb-ca.js";
import { rule, type Report, type Rule } from "./rule.js";
import { STATEFUL_COMPONENTS } from "./schema-deploy.js";
import type { StackSpec } from "./schema.js";

type StatefulComponent = (typeof STATEFUL_COMPONENTS)[number];

/** The project's directory (where Pulumi.yaml is, and where Helm resolves the post-renderer from). */
export const PROJECT_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Why the release could not run its DocumentDB CA post-renderer from `root`, or undefined. */
export function postRendererProblem(root: string): string | undefined {
  try {
    accessSync(join(root, DOCDB_CA_POSTRENDERER), constants.X_OK);
    return undefined;
  } catch {
    return `managed on aws needs the Amazon RDS CA in the platform's pods, which the release mounts with its post-renderer ${DOCDB_CA_POSTRENDERER}: it is missing or not executable in this checkout (git update-index --chmod=+x, or chmod +x)`;
  }
}

export const lifecycleRules: Rule[] = [
  rule(["data", "cloud"], (s, report) => {
    if (s.data.docdb !== "managed" || s.cloud.provider !== "aws") return;
    const problem = postRendererProblem(PROJECT_ROOT);
    if (problem) report("data.docdb", problem);
  }),
];

/** The release's PVC-backed components this stack file has in the cluster. */
export function inClusterStateful(s: StackSpec): StatefulComponent[] {
  return STATEFUL_COMPONENTS.filter((c) => {
    if (c === "objstore") return s.storage.provider === "Minio";
    if (c === "monitoring") return s.monitoring.enabled;
    return s.data[c] === "inCluster";
  });
}

/** Where a component is switched, for the message's path. */
const TOGGLE_PATH: Record<StatefulComponent, string> = {
  sqldb: "data.sqldb",
  cache: "data.cache",
  docdb: "data.docdb",
  mq: "data.mq",
  vectordb: "data.vectordb",
  objstore: "storage.provider",
  monitoring: "monitoring.enabled",
};

/**
 * A stack with state (`platform.state`): `protect` on the Release does not stop a values change
 * that removes an in-cluster StatefulSet (its pods go at once; its claims stay behind, orphaned),
 * and a few changes each provider refuses only deep in an update. Each is named here first.
 */
function checkState(s: StackSpec, report: Report): void {
  const state = s.platform.state;
  if (!state) return;
  const ack = new Set<string>(s.platform.acknowledge);
  const now = new Set(inClusterStateful(s));
  for (const c of state.inCluster)
    if (!now.has(c) && !ack.has(c))
      report(
        TOGGLE_PATH[c],
        `removes the in-cluster ${c} (its StatefulSet; its volumes are left orphaned) from a stack with state: dump and restore it first (docs/operations.md, "Toggle a stateful component"), then add ${c} to platform.acknowledge`,
      );
  if (s.cloud.provider === "aws" && s.data.mq === "managed" && state.mqDeploymentMode) {
    const mode = s.data.aws.multiAz ? "CLUSTER_MULTI_AZ" : "SINGLE_INSTANCE";
    if (mode !== state.mqDeploymentMode)
      report(
        "data.aws.multiAz",
        `would change the Amazon MQ broker from ${state.mqDeploymentMode} to ${mode}, which Amazon MQ cannot do to a broker (a replacement, refused while protected): create a new broker and move the platform to it (docs/operations.md)`,
      );
  }
  if (
    s.cloud.provider === "azure" &&
    state.postgresGeoRedundantBackup !== undefined &&
    s.data.azure.postgresGeoRedundantBackup !== state.postgresGeoRedundantBackup
  )
    report(
      "data.azure.postgresGeoRedundantBackup",
      "Azure sets geo-redundant backup only when a server is created: restore into a new server instead (docs/operations.md)",
    );
  checkPostgresServers(s, state, report);
  if (
    state.docdbInstances !== undefined &&
    s.data.aws.docdbInstances < state.docdbInstances &&
    !ack.has("docdbInstances")
  )
    report(
      "data.aws.docdbInstances",
      `fewer than the ${state.docdbInstances} DocumentDB instances deployed deletes protected instances, which Pulumi refuses: unprotect the highest-numbered ones (pulumi state unprotect), then add docdbInstances to platform.acknowledge`,
    );
}

/**
 * Azure grows a PostgreSQL disk itself (autoGrow) and refuses a smaller size, and azure-native
 * updates a server with a PUT of every input: each `up` of a stack with state reads the deployed
 * server's size (data/azure.ts), for which it needs the server's name.
 */
function checkPostgresServers(s: StackSpec, state: NonNullable<StackSpec["platform"]["state"]>, report: Report): void {
  if (s.cloud.provider !== "azure") return;
  for (const kind of ["sqldb", "vectordb"] as const)
    if (s.data[kind] === "managed" && !state.postgresServers?.[kind])
      report(
        `platform.state.postgresServers.${kind}`,
        `a stack with state names its deployed PostgreSQL server, so \`pulumi up\` sends the disk size Azure grew it to (autoGrow) rather than a smaller one Azure refuses: the name starting with data-${kind} in \`az postgres flexible-server list -g ${s.cloud.azure.resourceGroupName ?? "<group>"} --query "[].name" -o tsv\``,
      );
}

lifecycleRules.push(rule(["platform", "data", "cloud", "storage", "monitoring"], checkState));
