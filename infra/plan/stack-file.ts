/**
 * Reads a stack file for the offline plan and the tests. There is no secrets provider
 * offline, so each `secure:` entry becomes a stand-in string `secret-standin:<path>`: present
 * and opaque (the validator accepts it as a value and skips format checks on it), and
 * listed so the plan can mask it and the tests can prove it never leaks in plaintext.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { STACKS_DIR } from "../stack/stack-names.js";
import { STANDIN_PREFIX } from "../stack/sensitive.js";

export interface StackFile {
  /** Every config key of the file (`agentport:…`, `aws:region`, …) as Pulumi would pass it. */
  config: Record<string, unknown>;
  /** Dotted paths (`agentport:jwt.secret`) that were `secure:` entries. */
  securePaths: string[];
  /** Top-level keys holding a secure entry (Pulumi treats the whole key as secret). */
  secretKeys: string[];
}

const isSecure = (v: unknown): v is { secure: string } =>
  !!v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 1 && "secure" in v;

function standIns(value: unknown, path: string, found: string[]): unknown {
  if (isSecure(value)) {
    found.push(path);
    return `${STANDIN_PREFIX}${path}`;
  }
  if (Array.isArray(value)) return value.map((v, i) => standIns(v, `${path}[${i}]`, found));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, standIns(v, `${path}.${k}`, found)]));
  }
  return value;
}

export function readStackFile(stack: string, stacksDir: string = STACKS_DIR): StackFile {
  const doc = parse(readFileSync(join(stacksDir, `Pulumi.${stack}.yaml`), "utf8")) as {
    config?: Record<string, unknown>;
  };
  const config: Record<string, unknown> = {};
  const securePaths: string[] = [];
  const secretKeys: string[] = [];
  for (const [key, value] of Object.entries(doc.config ?? {})) {
    const before = securePaths.length;
    config[key] = standIns(value, key, securePaths);
    if (securePaths.length > before) secretKeys.push(key);
  }
  return { config, securePaths, secretKeys };
}

/** The `agentport:` keys without the namespace: the validator's input. */
export function projectConfig(file: StackFile): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(file.config)
      .filter(([k]) => k.startsWith("agentport:"))
      .map(([k, v]) => [k.slice("agentport:".length), v]),
  );
}
