/**
 * Every parameter path the deployment reference names, read from its text (docs/spec/deployment.md):
 * the first cell of each parameter table, the must-override table, the storage providers' lists,
 * the paths and `a.*` groups named in prose, the common fields every component has (the "Every
 * component has" paragraph, applied to each component the "What the service does" list names), the
 * monitoring components' resource paragraph, the boost instance keys (one per model suffix the
 * reference lists), the Versioning table (one `image.<component>.tag` each) and the resource table
 * (replicas, requests and limits per component). A group none of whose members the reference names
 * is a path of its own. The conformance table must list exactly these.
 *
 * A hand parser, not a Markdown library: none is a dependency here, and the reference's tables are
 * plain pipe tables (no escaped pipes, no alignment, no multi-line cells), so one line is one row;
 * what needs care is the shorthand inside cells and prose, which no Markdown parser expands.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const SPEC_FILE = fileURLToPath(new URL("../../docs/spec/deployment.md", import.meta.url));

/** Cells the shorthand rules cannot expand, written out (keyed by the cell's text, so an edit shows). */
const IRREGULAR: Record<string, string[]> = {
  "frontend.env.ROLLBAR_ENV-style error-tracker label": ["frontend.env.<error-tracker label>"],
  "frontend.env.REACT_APP_CAPTCHA_SITE_KEY, icon-font registry token": [
    "frontend.env.REACT_APP_CAPTCHA_SITE_KEY",
    "frontend.env.<icon-font registry token>",
  ],
  "llm.secretKeys.managed.CONVERSE_ACCESS_KEY_ID, CONVERSE_SECRET_ACCESS_KEY and the GLOBAL variants": [
    "llm.secretKeys.managed.CONVERSE_ACCESS_KEY_ID",
    "llm.secretKeys.managed.CONVERSE_SECRET_ACCESS_KEY",
    "llm.secretKeys.managed.CONVERSE_GLOBAL_ACCESS_KEY_ID",
    "llm.secretKeys.managed.CONVERSE_GLOBAL_SECRET_ACCESS_KEY",
  ],
  "monitoring.traces.ingester.maxBlockDuration / search.maxDuration": [
    "monitoring.traces.ingester.maxBlockDuration",
    "monitoring.traces.search.maxDuration",
  ],
  "monitoring.dashboards.resources.limits, .env": [
    "monitoring.dashboards.resources.limits",
    "monitoring.dashboards.env",
  ],
  "ingress.annotations connect-timeout, read-timeout, write-timeout": [
    "ingress.annotations.connect-timeout",
    "ingress.annotations.read-timeout",
    "ingress.annotations.write-timeout",
  ],
  "mq.extraConfiguration": ["mq.extraConfiguration"],
};

/** Resource-table component names → their values path. */
const COMPONENT_PATH: Record<string, string> = {
  frontend: "frontend",
  swef: "swef",
  "automation web": "automation.services.web",
  "automation jobs": "automation.services.jobs",
  "jobs-priority": "automation.services.jobs-priority",
  "automation rpc": "automation.services.rpc",
  "graphql engine": "graphql",
};

/** Versioning-table component names → the `image.<component>` key. */
const IMAGE_KEY: Record<string, string[]> = {
  "graphql engine": ["graphql"],
  "mail image": ["mail"],
  "smtp image": ["smtp"],
  "logs, logagent": ["logs", "logagent"],
  "opentelemetry collector": ["opentelemetry"],
  "kube-state metrics": ["kubeStateMetrics"],
  "node exporter": ["nodeExporter"],
  "blackbox exporter": ["blackboxExporter"],
};

/** Expands one cell: `a.b.c, .d / e, f.g` → a.b.c, a.b.d, a.b.e, f.g (and `_X` suffix swaps). */
export function expandCell(cell: string): string[] {
  const text = cell
    .replace(/`/g, "")
    .replace(/-equivalent \([^)]*\)/, "")
    .trim();
  if (IRREGULAR[text]) return IRREGULAR[text];
  const tokens = text
    .split(/\s*(?:,|\/)\s+/)
    .map((t) => t.trim())
    .filter(Boolean);
  const first = tokens[0];
  const base = first.slice(0, first.lastIndexOf("."));
  const leaf = first.slice(first.lastIndexOf(".") + 1);
  return tokens.map((t, i) => {
    if (i === 0) return t;
    if (t.startsWith(".")) return base + t;
    if (t.startsWith("_")) return `${base}.${leaf.slice(0, leaf.lastIndexOf("_"))}${t}`;
    if (
      /^[a-z][A-Za-z]*\.[A-Za-z]/.test(t) &&
      !/^[a-z]+[A-Z]/.test(t.split(".")[0]) &&
      t.split(".").length > 1 &&
      !t.startsWith("search.")
    )
      return t;
    return `${base}.${t}`;
  });
}

/** Rows of the markdown tables under a heading, as arrays of cells (header and rule dropped). */
function tables(md: string): Array<{ heading: string; header: string[]; rows: string[][] }> {
  const out: Array<{ heading: string; header: string[]; rows: string[][] }> = [];
  let heading = "";
  let current: { heading: string; header: string[]; rows: string[][] } | undefined;
  for (const line of md.split("\n")) {
    if (line.startsWith("#")) heading = line.replace(/^#+\s*/, "");
    if (!line.startsWith("|")) {
      current = undefined;
      continue;
    }
    const cells = line
      .split("|")
      .slice(1, -1)
      .map((c) => c.trim());
    if (!current) out.push((current = { heading, header: cells, rows: [] }));
    else if (!/^-+$/.test(cells[0] ?? "")) current.rows.push(cells);
  }
  return out;
}

/**
 * Paths named in prose: backticked dotted paths, `.x` right after one (relative to its parent), and
 * `a.*` groups, kept as groups (specPaths matches them with the paths found elsewhere).
 */
function prosePaths(md: string): string[] {
  const out: string[] = [];
  for (const para of md.split("\n").filter((l) => !l.startsWith("|") && !l.startsWith("Every component has"))) {
    let parent = "";
    for (const [, token] of para.matchAll(/`([^`]+)`/g)) {
      const t = token;
      if (/^[a-z][A-Za-z_]*(?:\.[A-Za-z_][\w-]*)*\.\*$/.test(t)) out.push(t);
      else if (
        /^[a-z][A-Za-z_]*\.[A-Za-z_<][\w.<>-]*$/.test(t) &&
        !/your-domain|^gpt-|^extra_config|^automation\.services\./.test(t)
      ) {
        out.push(t);
        parent = t.slice(0, t.lastIndexOf("."));
      } else if (/^\.[A-Za-z]+$/.test(t) && parent) out.push(parent + t);
    }
  }
  return out;
}

/**
 * Groups the reference names without listing their members, whose members are another group's
 * (keyed by the group, so an edit shows): the Credentials table lists the first git host's fields
 * only, and the second git host is the same integration.
 */
const SHARED_MEMBERS: Record<string, string> = { "credentials.githost_b.*": "credentials.githost_a.*" };

/** A group's members as those of the group it shares them with (none when that group has none either). */
function sharedMembers(group: string, found: string[]): string[] {
  const from = SHARED_MEMBERS[group];
  if (!from) return [];
  const [source, target] = [from.slice(0, -1), group.slice(0, -1)];
  return found.filter((f) => f.startsWith(source)).map((f) => target + f.slice(source.length));
}

/** The boost paragraph's sentence that lists one instance's model suffixes: its instance number and suffixes. */
function boostInstanceSentence(md: string): { line: string; instance: string; suffixes: string[] } {
  const line = md.split("\n").find((l) => /Instance \d+ has models suffixes /.test(l));
  if (!line) throw new Error("the reference has no boost instance models sentence");
  const [, instance, list] = /Instance (\d+) has models suffixes ([^.]*)\./.exec(line)!;
  const suffixes = list.split(/,\s*(?:and\s+)?|\s+and\s+/).map((x) => x.trim());
  const odd = suffixes.filter((x) => !/^[A-Z0-9_]+$/.test(x));
  if (odd.length) throw new Error(`unread boost model suffixes: ${odd.join(", ")}`);
  return { line, instance, suffixes };
}

/** The boost model suffixes the reference lists ("Instance 1 has models suffixes …"), in its order. */
export function boostInstanceSuffixes(md: string = readFileSync(SPEC_FILE, "utf8")): string[] {
  return boostInstanceSentence(md).suffixes;
}

/** One key per listed suffix: the paragraph's `…_INSTANCE_<n>_<MODEL>` template with that instance and suffix. */
function boostInstancePaths(md: string): string[] {
  const { line, instance, suffixes } = boostInstanceSentence(md);
  const template = /`([^`]*_INSTANCE_<n>_<MODEL>)`/.exec(line)?.[1];
  if (!template) throw new Error("the boost paragraph names no …_INSTANCE_<n>_<MODEL> parameter");
  return suffixes.map((x) => template.replace("<n>", instance).replace("<MODEL>", x));
}

/** Prose names of components ("What the service does") → their values key; null: not one component. */
const PROSE_COMPONENT: Record<string, string | null> = {
  "graphql engine": "graphql",
  "mail relay": "mail",
  "self-hosted SMTP server": "smtp",
  "monitoring stack": null,
};

/** The lines of one `##`/`###` section, up to the next heading. */
function section(md: string, heading: string): string[] {
  const lines = md.split("\n");
  const start = lines.findIndex((l) => /^#+\s/.test(l) && l.replace(/^#+\s*/, "") === heading);
  if (start < 0) throw new Error(`the reference has no section "${heading}"`);
  const end = lines.findIndex((l, i) => i > start && /^#+\s/.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** Every component's values key: the bullets of "What the service does" and the automation sub-service keys. */
export function components(md: string): string[] {
  const lines = section(md, "What the service does");
  const out: string[] = [];
  for (const bullet of lines.filter((l) => l.startsWith("- "))) {
    const text = bullet
      .slice(2)
      .replace(/^[a-z ]+:\s*/, "")
      .replace(/;.*$/, "")
      .replace(/\s*\([^)]*\)/g, "")
      .replace(/\.$/, "");
    for (const name of text
      .split(/,\s*|\s+and\s+/)
      .map((n) => n.trim())
      .filter(Boolean)) {
      const key = name in PROSE_COMPONENT ? PROSE_COMPONENT[name] : name;
      if (key) out.push(key);
    }
  }
  const subServices = lines
    .filter((l) => !l.startsWith("- "))
    .flatMap((l) => [...l.matchAll(/`(automation\.services\.[\w-]+)`/g)].map((m) => m[1]));
  return [...out, ...subServices];
}

/** The fields of the "Every component has" paragraph: backticked names, `.x` relative to the one before. */
function commonFields(md: string): string[] {
  const para = md.split("\n").find((l) => l.startsWith("Every component has"));
  if (!para) throw new Error("the reference has no common-fields paragraph");
  const sentence = para.slice(0, para.indexOf(". Defaults of"));
  const out: string[] = [];
  for (const [, t] of sentence.matchAll(/`([^`]+)`/g)) {
    if (/^[a-z][A-Za-z]*(\.[a-z][A-Za-z]*)?$/.test(t) && !["true", "false"].includes(t)) out.push(t);
    else if (/^\.[a-z][A-Za-z]*$/.test(t)) out.push(out.at(-1)!.replace(/\.[^.]*$/, "") + t);
  }
  return out;
}

/** Common fields × components; objstore counts replicas as `objstore.replicas` (its own paragraph's name). */
function componentPaths(md: string): string[] {
  const fields = commonFields(md);
  return components(md).flatMap((c) =>
    fields.map((f) => (c === "objstore" && f === "replicaCount" ? "objstore.replicas" : `${c}.${f}`)),
  );
}

/** Monitoring components' key in values, by their name in the resource paragraph. */
const MONITORING_KEY: Record<string, string> = {
  collector: "opentelemetry",
  "node exporter": "nodeExporter",
  "kube-state": "kubeStateMetrics",
};

/** "Monitoring components also take …": placement fields, request defaults, the metrics limits and replicas. */
function monitoringPaths(md: string): string[] {
  const para = md.split("\n").find((l) => l.startsWith("Monitoring components also take"));
  if (!para) throw new Error("the reference has no monitoring resources paragraph");
  const placement = [...para.slice(0, para.indexOf(";")).matchAll(/`(\w+)`/g)]
    .map((m) => m[1])
    .filter((f) => f !== "resources");
  const [, requests, rest] = /request defaults: ([^;]*); (.*)$/.exec(para)!;
  const out: string[] = [];
  for (const item of requests.split(/,\s*/)) {
    const [, name] = /^(.*) \S+\/\S+$/.exec(item)!;
    const key = `monitoring.${MONITORING_KEY[name] ?? name}`;
    out.push(
      ...placement.map((f) => `${key}.${f}`),
      `${key}.resources.requests.memory`,
      `${key}.resources.requests.cpu`,
    );
  }
  for (const item of rest.replace(/\.$/, "").split(/,\s*/)) {
    const limits = /^(\S+) limits \S+\/\S+$/.exec(item);
    if (limits)
      out.push(`monitoring.${limits[1]}.resources.limits.memory`, `monitoring.${limits[1]}.resources.limits.cpu`);
    else if (/^replicas \d+$/.test(item)) out.push(`monitoring.${/^(\S+) limits/.exec(rest)![1]}.replicaCount`);
    else throw new Error(`unread monitoring resource item: ${item}`);
  }
  return out;
}

/** Paths of the must-override table's cells: dotted paths, `.x` after one (relative), `a.*` groups. */
function overridePaths(cell: string): string[] {
  const out: string[] = [];
  for (const [t] of cell.matchAll(/(?:[a-z][A-Za-z_]*\.)+(?:[A-Za-z_][\w-]*|\*)|(?<![\w.])\.[A-Za-z_]+/g)) {
    out.push(t.startsWith(".") ? out.at(-1)!.replace(/\.[^.]*$/, "") + t : t);
  }
  return out;
}

/** Every path of the reference, each once, in order of appearance. */
export function specPaths(md: string = readFileSync(SPEC_FILE, "utf8")): string[] {
  const found: string[] = [];
  const groups: string[] = [];
  for (const t of tables(md)) {
    if (t.header[0] === "Category" && t.header[1] === "Parameters") {
      for (const p of t.rows.flatMap((row) => overridePaths(row[1]))) (p.endsWith(".*") ? groups : found).push(p);
    }
    if (t.header[0] === "Parameter") for (const row of t.rows) found.push(...expandCell(row[0]));
    if (t.header[0] === "Provider")
      for (const row of t.rows) found.push(...expandCell(row[1].replace(/\s*\([^)]*\)/g, "")));
    if (t.heading === "Versioning") {
      for (const row of t.rows) for (const key of IMAGE_KEY[row[0]] ?? [row[0]]) found.push(`image.${key}.tag`);
    }
    if (t.header[0] === "Component" && t.header[1] === "replicas") {
      for (const row of t.rows) {
        for (const name of row[0].split(/,\s*/)) {
          const path = COMPONENT_PATH[name] ?? name.replace(/ .*/, "");
          const [replicas, reqMem, reqCpu, limMem, limCpu] = row.slice(1);
          if (replicas !== "-") found.push(`${path}.${path === "objstore" ? "replicas" : "replicaCount"}`);
          if (reqMem !== "-") found.push(`${path}.resources.requests.memory`);
          if (reqCpu !== "-") found.push(`${path}.resources.requests.cpu`);
          if (limMem !== "-") found.push(`${path}.resources.limits.memory`);
          if (limCpu !== "-") found.push(`${path}.resources.limits.cpu`);
        }
      }
    }
  }
  found.push(...componentPaths(md), ...monitoringPaths(md), ...boostInstancePaths(md));
  const named = prosePaths(md);
  groups.push(...named.filter((p) => p.endsWith(".*")));
  for (const g of groups) found.push(...sharedMembers(g, found));
  // A prose path that names a group (`storage.secret.objstore`) or a template already expanded adds nothing.
  const prose = named.filter(
    (p) => !p.endsWith(".*") && p !== "image.<component>.tag" && !found.some((f) => f.startsWith(`${p}.`)),
  );
  // A group none of whose members the reference names anywhere is a row of its own (`credentials.design.*`).
  const unmatched = groups.filter((g) => ![...found, ...prose].some((f) => f.startsWith(g.slice(0, -1))));
  return [...new Set([...found, ...prose, ...unmatched])];
}
