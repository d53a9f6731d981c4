/**
 * Reads a stack file for the offline plan and the tests. There is no secrets provider
 * offline, so each `secure:` entry becomes a stand-in string `secret-standin:<path>`: present
 * and opaque (the validator accepts it as a value and skips format checks on it), and
 * listed so the plan can mask it and the tests can prove it never leaks in plaintext.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parse, YAMLParseError } from "yaml";
import { yamlProblem } from "../../service/src/yaml-problem.js";
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

/** The file as a person finds it: relative to the working directory when it is below it. */
const shown = (file: string) => (relative(process.cwd(), file).startsWith("..") ? file : relative(process.cwd(), file));

export function readStackFile(stack: string, stacksDir: string = STACKS_DIR): StackFile {
  const file = join(stacksDir, `Pulumi.${stack}.yaml`);
  let doc: { config?: Record<string, unknown> } | null;
  try {
    doc = parse(readFileSync(file, "utf8")) as typeof doc;
  } catch (err) {
    // One line: the file, then the parser's reason and line (its code frame left out).
    const why =
      err instanceof YAMLParseError
        ? `is not valid YAML: ${yamlProblem(err)}`
        : `cannot be read: ${(err as Error).message}`;
    throw new Error(`Stack file ${shown(file)} ${why}`, { cause: err });
  }
  const config: Record<string, unknown> = {};
  const securePaths: string[] = [];
  const secretKeys: string[] = [];
  for (const [key, value] of Object.entries(doc?.config ?? {})) {
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

/**
 * The stack file with `PATH=VALUE` edits applied (`data.aws.postgresInstanceClass=db.r6g.xlarge`;
 * the value is read as YAML, so `true`, `3` and `"17"` keep their types, `{secure: x}` is a
 * secret's stand-in, and `~` removes the key): an operation's plan, before the stack file is edited. Paths are the `agentport:` keys without the namespace.
 */
export function withEdits(file: StackFile, edits: string[]): StackFile {
  const config = structuredClone(file.config);
  const securePaths = [...file.securePaths];
  const secretKeys = [...file.secretKeys];
  for (const edit of edits) {
    const eq = edit.indexOf("=");
    const path = edit.slice(0, eq).split(".");
    if (eq < 1 || path.some((p) => p === "")) throw new Error(`--set wants PATH=VALUE, got ${edit}`);
    const key = `agentport:${path[0]}`;
    let node = (config[key] ??= {}) as Record<string, unknown>;
    for (const p of path.slice(1, -1)) node = (node[p] ??= {}) as Record<string, unknown>;
    const before = securePaths.length;
    const value = standIns(
      parse(edit.slice(eq + 1)),
      `${key}${path
        .slice(1)
        .map((p) => `.${p}`)
        .join("")}`,
      securePaths,
    );
    if (securePaths.length > before && !secretKeys.includes(key)) secretKeys.push(key);
    // `PATH=~` (YAML null): planned as if the stack file lacked the key.
    if (value === null) {
      if (path.length === 1) delete config[key];
      else delete node[path.at(-1)!];
    } else if (path.length === 1) config[key] = value;
    else node[path.at(-1)!] = value;
  }
  return { config, securePaths, secretKeys };
}
