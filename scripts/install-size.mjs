#!/usr/bin/env node
/**
 * What `npm ci` installs and why: every package of package-lock.json with its size on disk,
 * charged to the direct dependencies (package.json) that pull it in. A package reached from one
 * direct dependency only is that dependency's alone (dropping it removes it); one reached from
 * several is shared. `node scripts/install-size.mjs [--json]` after `npm ci`.
 */
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8"));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** Bytes on disk under `dir` (4 KiB blocks, as du counts), nested node_modules excluded: those are packages of their own. */
function diskBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules") total += diskBytes(path);
    } else total += lstatSync(path).blocks * 512;
  }
  return total;
}

/** The lockfile entry that `name` resolves to from the package at `from` (Node's lookup: nearest node_modules up). */
function resolve(from, name) {
  for (let base = from; ;) {
    const key = `${base ? `${base}/` : ""}node_modules/${name}`;
    if (lock.packages[key]) return key;
    if (!base) return undefined;
    const at = base.lastIndexOf("node_modules/");
    base = at <= 0 ? "" : base.slice(0, at - 1);
  }
}

const direct = Object.entries({ ...pkg.dependencies, ...pkg.devDependencies }).map(([name]) => ({
  name,
  dev: name in (pkg.devDependencies ?? {}),
}));
/** Which direct dependencies reach each installed package. */
const reachedBy = new Map();
for (const d of direct) {
  const start = resolve("", d.name);
  const stack = start ? [start] : [];
  const seen = new Set();
  while (stack.length) {
    const key = stack.pop();
    if (seen.has(key)) continue;
    seen.add(key);
    (reachedBy.get(key) ?? reachedBy.set(key, new Set()).get(key)).add(d.name);
    const entry = lock.packages[key];
    const deps = { ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies };
    for (const name of Object.keys(deps)) {
      const next = resolve(key, name);
      if (next) stack.push(next);
    }
  }
}

const sizes = new Map();
for (const key of Object.keys(lock.packages)) {
  if (!key) continue;
  try {
    sizes.set(key, diskBytes(join(root, key)));
  } catch {
    sizes.set(key, 0); // not installed here (another platform's optional package)
  }
}

const rows = direct.map((d) => {
  let alone = 0;
  let shared = 0;
  let count = 0;
  for (const [key, by] of reachedBy) {
    if (!by.has(d.name)) continue;
    count++;
    if (by.size === 1) alone += sizes.get(key) ?? 0;
    else shared += sizes.get(key) ?? 0;
  }
  return { name: d.name, dev: d.dev, packages: count, aloneMB: alone / 2 ** 20, sharedMB: shared / 2 ** 20 };
});
rows.sort((a, b) => b.aloneMB - a.aloneMB);
const total = [...sizes.values()].reduce((a, b) => a + b, 0) / 2 ** 20;
const unreached = [...sizes.keys()].filter((k) => !reachedBy.has(k));

if (process.argv.includes("--json")) {
  process.stdout.write(JSON.stringify({ totalMB: total, packages: sizes.size, rows, unreached }, null, 2) + "\n");
} else {
  process.stdout.write(`${sizes.size} packages, ${total.toFixed(0)} MB on disk\n\n`);
  process.stdout.write("direct dependency                        kind  packages  alone MB  shared MB\n");
  for (const r of rows)
    process.stdout.write(
      `${r.name.padEnd(40)} ${(r.dev ? "dev" : "prod").padEnd(5)} ${String(r.packages).padStart(8)} ${r.aloneMB.toFixed(1).padStart(9)} ${r.sharedMB.toFixed(1).padStart(10)}\n`,
    );
  if (unreached.length)
    process.stdout.write(`\nin the lockfile but reached from no direct dependency: ${unreached.join(", ")}\n`);
}
