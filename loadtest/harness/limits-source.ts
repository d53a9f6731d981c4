/**
 * The limits a run verifies: the stack file's (or the deployment package's defaults), then
 * any flag on top — flags always win, so the harness works with or without a stack file.
 */
import { assertStackExists } from "../../infra/stack/stack-names.js";
import { defaultLimits, loadStackLimits, STACKS_DIR } from "../../infra/limits.js";
import type { Limits } from "../gateway/limits.js";

export interface ResolvedLimits {
  limits: Limits;
  /** Where they came from, for the report. */
  source: string;
}

export function resolveLimits(
  stack: string | undefined,
  stacksDir: string | undefined,
  overrides: Partial<Limits>,
): ResolvedLimits {
  if (stack) assertStackExists(stack, stacksDir ?? STACKS_DIR);
  const base = stack ? loadStackLimits(stack, stacksDir) : defaultLimits();
  const flagged = Object.keys(overrides);
  const source = [stack ? `stack ${stack}` : "package defaults", flagged.length ? `flags (${flagged.join(", ")})` : ""]
    .filter(Boolean)
    .join(" + ");
  return { limits: { ...base, ...overrides }, source };
}
