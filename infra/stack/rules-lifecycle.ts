/**
 * What a deployment needs to live past its first `up`, checked before any resource is declared:
 * the DocumentDB CA the release delivers itself (the platform's pods fail TLS without it, and an
 * atomic install then uninstalls everything).
 */
import { accessSync, constants } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DOCDB_CA_POSTRENDERER } from "../platform/postrender/docdb-ca.js";
import { rule, type Rule } from "./rule.js";

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
