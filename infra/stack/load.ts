/**
 * The one reader of a stack file outside Pulumi: `secure:` entries become stand-ins, and the
 * whole stack is validated as `pulumi up` would validate it. A stack the deployment refuses is
 * refused here too, with the same list of problems.
 */
import { projectConfig, readStackFile } from "../plan/stack-file.js";
import type { StackSpec } from "./schema.js";
import { STACKS_DIR } from "./stack-names.js";
import { requireValidStack } from "./validate.js";

export function loadStackSpec(stack: string, stacksDir: string = STACKS_DIR): StackSpec {
  return requireValidStack(projectConfig(readStackFile(stack, stacksDir)), `Stack '${stack}'`);
}
