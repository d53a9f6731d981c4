#!/usr/bin/env node
/**
 * `npm run build`: the production artifact in dist/ — the service and the keys CLI as plain
 * JavaScript that `node` runs alone (no tsx, no TypeScript, no Pulumi), plus the few packages
 * that must stay on disk, declared in dist/package.json with their own lockfile.
 *
 * Contract: copy dist/ anywhere, run `npm ci --omit=dev` in the copy, then `node server.js`
 * starts the service with the same environment variables as `npm start`.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { bundleOptions, INSTALLED } from "./bundle-options.mjs";
import { cachedTemplate } from "./pglite-template.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist");

const rootPkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8"));
const lockedVersion = (name) => {
  const entry = lock.packages[`node_modules/${name}`];
  if (!entry) throw new Error(`${name} is not in package-lock.json: run npm ci first`);
  return entry.version;
};

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

await build({
  ...bundleOptions(root),
  entryPoints: {
    server: join(root, "service/src/server.ts"),
    keys: join(root, "service/src/cli/keys.ts"),
    // Run by the deployment's Job that gives the service a database role of its own.
    "provision-db": join(root, "service/src/cli/provision-db.ts"),
  },
  outdir: out,
});

// V8 keeps each loaded script's source in the heap, at two bytes a character when any character is
// beyond Latin-1: the server's bundle held 6.8 MB instead of 3.4 MB. esbuild writes code in ASCII
// (its default charset escapes the rest), so what is left beyond it is in comments, where a "?" does.
for (const file of readdirSync(out).filter((f) => f.endsWith(".js"))) {
  const code = readFileSync(join(out, file), "utf8");
  if (/[^\x00-\x7f]/.test(code)) writeFileSync(join(out, file), code.replace(/[^\x00-\x7f]/g, "?"));
}

// Read at run time next to the bundle: migrate.ts resolves ./migrations from its own URL.
cpSync(join(root, "service/src/store/migrations"), join(out, "migrations"), { recursive: true });
cpSync(join(root, "service/agents.example.yaml"), join(out, "agents.example.yaml"));

// The embedded store's template, read beside the bundle (pglite-template.ts), made once per
// PGlite version.
const template = await cachedTemplate();
cpSync(template, join(out, basename(template)));

const pkg = {
  name: "agentport-service",
  version: rootPkg.version,
  private: true,
  description: "agentport API service (production build)",
  type: "module",
  license: rootPkg.license,
  engines: rootPkg.engines,
  main: "server.js",
  scripts: { start: "node server.js", keys: "node keys.js" },
  dependencies: Object.fromEntries(INSTALLED.map((name) => [name, lockedVersion(name)])),
};
writeFileSync(join(out, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
// The lockfile pins the installed packages' own dependencies too, so `npm ci` in the image is exact.
execFileSync("npm", ["install", "--package-lock-only", "--no-audit", "--no-fund", "--ignore-scripts"], {
  cwd: out,
  stdio: "inherit",
});
console.log(`built ${out}`);
