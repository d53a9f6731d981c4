/**
 * A recorded offline plan as the policy pack sees a preview: secrets unwrapped, options and
 * property dependencies as declared. Offline, a `secure:` entry is a stand-in; a preview decrypts
 * it, so each becomes a random 64-character value here, as a user's generated secret would be.
 */
import { createHash } from "node:crypto";
import { isSecretEnvelope, type Plan } from "../../infra/plan/run.js";
import type { PolicyInput } from "../../infra/policy/resource.js";
import { isStandIn } from "../../infra/stack/sensitive.js";

function decrypted(value: unknown): unknown {
  if (isSecretEnvelope(value)) return decrypted(value.value);
  if (isStandIn(value)) return createHash("sha256").update(String(value)).digest("hex");
  if (Array.isArray(value)) return value.map(decrypted);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decrypted(v)]));
  return value;
}

export function policyInputs(plan: Plan): PolicyInput[] {
  return plan.resources.map((r) => {
    const key = `${r.type}::${r.name}`;
    return {
      type: r.type,
      name: r.name,
      props: decrypted(r.inputs) as Record<string, unknown>,
      protect: plan.options.get(key)?.protect ?? false,
      stack: plan.stack,
      dependsOn: plan.propertyDependencies.get(key) ?? {},
    };
  });
}

/** The inputs with one resource changed (by type and name); throws when there is no such resource. */
export function mutated(
  inputs: PolicyInput[],
  type: string,
  name: string,
  change: (r: PolicyInput) => void,
): PolicyInput[] {
  const copy = structuredClone(inputs);
  const target = copy.find((r) => r.type === type && r.name === name);
  if (!target) throw new Error(`no ${type} ${name} in the plan`);
  change(target);
  return copy;
}
