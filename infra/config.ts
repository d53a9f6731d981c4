/**
 * The only reader of `pulumi.Config`. Reads every `agentport:` key, validates the whole stack
 * (see stack/validate.ts) and fails before any resource is declared, listing every problem.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { readStackFile } from "./plan/stack-file.js";
import { STACKS_DIR } from "./stack/stack-names.js";
import { GROUP_NAMES, type StackSpec } from "./stack/schema.js";
import { requireValidStack } from "./stack/validate.js";

export type { StackSpec } from "./stack/schema.js";

export function loadConfig(): StackSpec {
  const config = new pulumi.Config("agentport");
  const raw: Record<string, unknown> = {};
  for (const group of GROUP_NAMES) {
    const value = config.getObject<unknown>(group);
    if (value !== undefined) raw[group] = value;
  }
  // Keys the schema does not know (typos) are reported too, not silently ignored.
  for (const key of Object.keys(pulumi.runtime.allConfig())) {
    const [ns, name] = key.split(":");
    if (ns === "agentport" && name && !(name in raw) && !(GROUP_NAMES as string[]).includes(name)) raw[name] = true;
  }
  // Pulumi hands over secrets decrypted: which values were `secure:` entries only the stack file says.
  const stack = pulumi.getStack();
  const secure = new Set(existsSync(join(STACKS_DIR, `Pulumi.${stack}.yaml`)) ? readStackFile(stack).securePaths : []);
  const isSecure = (path: string) => secure.has(`agentport:${path}`);
  return requireValidStack(raw, `Stack '${stack}'`, { isSecure });
}
