/**
 * What a validator sees of a resource: the pack builds it from the engine's view at preview, the
 * tests from a recorded offline plan. Validators are pure functions of these.
 */

/** A value the engine cannot know before the update (a generated password, a new resource's id). */
export const UNKNOWN = Symbol("unknown at preview");

export interface PolicyInput {
  type: string;
  /** The resource's logical name (what a violation names). */
  name: string;
  /** Inputs, secrets unwrapped; values not known at preview are UNKNOWN. */
  props: Record<string, unknown>;
  protect: boolean;
  /** The stack the resource belongs to (from its URN), when known. */
  stack?: string;
  /** The region of the resource's provider, when it declares one. */
  providerRegion?: unknown;
  /** Names of the resources each input is built from (the engine's property dependencies). */
  dependsOn: Record<string, string[]>;
}

/** One refusal: the resource it names and why. */
export interface Violation {
  resource: string;
  message: string;
}

export const violation = (r: PolicyInput, message: string): Violation => ({
  resource: r.name,
  message: `${r.name} (${r.type}): ${message}`,
});

/** Every string leaf with its dotted path (arrays as `[i]`). */
export function stringLeaves(value: unknown, path = ""): Array<[string, string]> {
  if (typeof value === "string") return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringLeaves(v, `${path}[${i}]`));
  if (value && typeof value === "object")
    return Object.entries(value).flatMap(([k, v]) => stringLeaves(v, path ? `${path}.${k}` : k));
  return [];
}
