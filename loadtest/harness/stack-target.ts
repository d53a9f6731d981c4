/**
 * `--stack NAME` without `--target`: the deployed API's origin, from the stack's outputs
 * (`pulumi stack output --json`, its `apiBaseUrl`) when given, else from the stack's config the
 * way the deployment derives it (infra/api/settings.ts: `api.host`, or `api.<ingress.domainName>`).
 */
import { readFileSync } from "node:fs";
import { loadStackSpec } from "../../infra/stack/load.js";
import { STACKS_DIR } from "../../infra/stack/stack-names.js";

export function stackTargetUrl(
  stack: string,
  stacksDir: string | undefined,
  outputsFile: string | undefined,
): { url: string; source: string } {
  if (outputsFile) {
    let outputs: { apiBaseUrl?: unknown };
    try {
      outputs = JSON.parse(readFileSync(outputsFile, "utf8")) as { apiBaseUrl?: unknown };
    } catch (err) {
      throw new Error(`--stack-outputs ${outputsFile}: ${(err as Error).message}`, { cause: err });
    }
    if (typeof outputs.apiBaseUrl !== "string" || !URL.canParse(outputs.apiBaseUrl)) {
      throw new Error(
        `--stack-outputs ${outputsFile} has no apiBaseUrl (write it with: pulumi stack output --json > ${outputsFile})`,
      );
    }
    return { url: new URL(outputs.apiBaseUrl).origin, source: `stack ${stack} outputs` };
  }
  const spec = loadStackSpec(stack, stacksDir ?? STACKS_DIR);
  return { url: `https://${spec.api.host || `api.${spec.ingress.domainName}`}`, source: `stack ${stack} config` };
}
