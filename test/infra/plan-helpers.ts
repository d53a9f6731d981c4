/** Shared checks for the per-stack plan tests (one stack per test file: the program runs once per process). */
import { expect } from "vitest";
import { formatPlan, releaseValues } from "../../infra/plan/format.js";
import { isSecretEnvelope, runPlan, type Plan } from "../../infra/plan/run.js";
import { STANDIN_PREFIX } from "../../infra/stack/sensitive.js";

export async function planFor(stack: string): Promise<{ plan: Plan; text: string; values: Record<string, unknown>; valuesSecret: boolean }> {
  const plan = await runPlan(stack);
  const rv = releaseValues(plan);
  if (!rv) throw new Error("no platform release in the plan");
  return { plan, text: formatPlan(plan), values: rv.values, valuesSecret: rv.wasSecret };
}

/** Paths of strings outside secret envelopes that contain a known secret value. */
export function plaintextSecrets(value: unknown, secrets: Set<string>, path = ""): string[] {
  if (isSecretEnvelope(value)) return [];
  if (typeof value === "string") {
    if (value.includes(STANDIN_PREFIX)) return [path];
    return [...secrets].some((s) => value.includes(s)) ? [path] : [];
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => plaintextSecrets(v, secrets, `${path}[${i}]`));
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => plaintextSecrets(v, secrets, `${path}.${k}`));
  return [];
}

/** Reads a dotted path (`a.b[0].c`) from a values tree. */
export function at(tree: unknown, path: string): unknown {
  return path
    .replace(/\[(\d+)\]/g, ".$1")
    .split(".")
    .reduce<unknown>((node, key) => (node && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined), tree);
}

export function expectNoPlaintextSecrets(plan: Plan): void {
  const leaks = plan.resources.flatMap((r) => plaintextSecrets(r.inputs, plan.secretValues, `${r.type}::${r.name}`));
  expect(leaks).toEqual([]);
  for (const [name, o] of Object.entries(plan.outputs)) {
    if (!o.secret) expect(plaintextSecrets(o.value, plan.secretValues, name)).toEqual([]);
  }
}

export const types = (plan: Plan) => plan.resources.map((r) => r.type);
