/**
 * Prints a plan for people and for snapshots: resources with their inputs, the rendered
 * Helm values, the stack outputs. Secrets are masked: serialized secrets, sensitive
 * parameter paths, and any string containing a known secret value.
 */
import { createHash } from "node:crypto";
import { stringify } from "yaml";
import { isSensitivePath, STANDIN_PREFIX } from "../stack/sensitive.js";
import { isSecretEnvelope, type Plan } from "./run.js";

export const MASK = "[secret]";
const RELEASE = "kubernetes:helm.sh/v3:Release";

/** A copy with every secret replaced by the mask; `path` follows the values tree. */
export function mask(value: unknown, secrets: Set<string>, path = ""): unknown {
  if (isSecretEnvelope(value)) return maskAll(value.value);
  if (typeof value === "string") {
    if (value.includes(STANDIN_PREFIX)) return MASK;
    for (const s of secrets) if (s && value.includes(s)) return MASK;
    if (path && isSensitivePath(path) && value !== "") return MASK;
    return summarizeLong(value);
  }
  if (Array.isArray(value)) return value.map((v, i) => mask(v, secrets, `${path}[${i}]`));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mask(v, secrets, path ? `${path}.${k}` : k)]));
  }
  return value;
}

/** Longest string printed whole; longer ones (a CA bundle) print as their size and digest. */
const LONG_STRING = 4096;
function summarizeLong(value: string): string {
  if (value.length <= LONG_STRING) return value;
  const digest = createHash("sha256").update(value).digest("hex").slice(0, 16);
  return `[${value.length} characters, sha256 ${digest}…]`;
}

/** Inside a secret: structure kept, every string masked. */
function maskAll(value: unknown): unknown {
  if (typeof value === "string") return value === "" ? value : MASK;
  if (Array.isArray(value)) return value.map(maskAll);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskAll(v)]));
  return value;
}

/** The Release's values tree, unwrapped from its secret envelope, masked leaf by leaf. */
export function releaseValues(plan: Plan): { values: Record<string, unknown>; wasSecret: boolean } | undefined {
  const release = plan.resources.find((r) => r.type === RELEASE);
  if (!release) return undefined;
  const raw = release.inputs.values;
  const wasSecret = isSecretEnvelope(raw);
  const values = (wasSecret ? raw.value : raw) as Record<string, unknown>;
  return { values, wasSecret };
}

export function formatPlan(plan: Plan): string {
  const lines: string[] = [`Plan for stack '${plan.stack}' (offline: mocked providers, no credentials)`, ""];
  lines.push(`Resources (${plan.resources.length}):`);
  // Registration order varies run to run; a sorted list diffs cleanly.
  const sorted = [...plan.resources].sort((a, b) => a.type.localeCompare(b.type) || a.name.localeCompare(b.name));
  for (const r of sorted) {
    const o = plan.options.get(`${r.type}::${r.name}`);
    const flags = [
      o?.protect ? "protect" : "",
      o?.dependsOn.length ? `dependsOn: ${o.dependsOn.join(", ")}` : "",
      o?.ignoreChanges.length ? `ignoreChanges: ${o.ignoreChanges.join(", ")}` : "",
      o?.replaceOnChanges.length ? `replaceOnChanges: ${o.replaceOnChanges.join(", ")}` : "",
    ].filter(Boolean);
    lines.push(`  + ${r.type}  ${r.name}${flags.length ? `  (${flags.join("; ")})` : ""}`);
    if (r.type === RELEASE) {
      const { values: _v, ...rest } = r.inputs;
      lines.push(indent(stringify(mask(rest, plan.secretValues)), 6));
    } else if (Object.keys(r.inputs).length > 0) {
      lines.push(indent(stringify(mask(r.inputs, plan.secretValues)), 6));
    }
  }
  const rv = releaseValues(plan);
  if (rv) {
    lines.push("", `Helm values (${rv.wasSecret ? "passed as a secret" : "NOT SECRET"}; secrets masked):`);
    lines.push(indent(stringify(mask(rv.values, plan.secretValues)), 2));
  }
  lines.push("", "Outputs:");
  for (const [name, o] of Object.entries(plan.outputs)) {
    lines.push(
      `  ${name}: ${o.secret ? MASK : o.value === undefined ? "(none)" : JSON.stringify(mask(o.value, plan.secretValues))}`,
    );
  }
  return lines.join("\n").replace(/[ \t]+$/gm, "") + "\n";
}

const indent = (text: string, n: number) =>
  text
    .trimEnd()
    .split("\n")
    .map((l) => " ".repeat(n) + l)
    .join("\n");

/** The plan as one JSON document, for tests and CI: inputs masked as in the text, options included. */
export function planJson(plan: Plan): Record<string, unknown> {
  const rv = releaseValues(plan);
  return {
    stack: plan.stack,
    resources: plan.resources.map((r) => {
      const o = plan.options.get(`${r.type}::${r.name}`) ?? {
        protect: false,
        dependsOn: [],
        ignoreChanges: [],
        replaceOnChanges: [],
      };
      const inputs =
        r.type === RELEASE && rv
          ? {
              ...(mask({ ...r.inputs, values: undefined }, plan.secretValues) as object),
              values: mask(rv.values, plan.secretValues),
            }
          : mask(r.inputs, plan.secretValues);
      return { type: r.type, name: r.name, inputs, options: o };
    }),
    invokes: plan.invokes.map((c) => ({ token: c.token, inputs: mask(c.inputs, plan.secretValues) })),
    outputs: Object.fromEntries(
      Object.entries(plan.outputs).map(([name, o]) => [
        name,
        o.secret ? MASK : (mask(o.value, plan.secretValues) ?? null),
      ]),
    ),
  };
}
