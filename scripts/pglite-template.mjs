#!/usr/bin/env node
/**
 * `node scripts/pglite-template.mjs`: the embedded store's template (pglite-template.ts) for the
 * installed PGlite version, kept in node_modules/.cache/agentport and made only when missing —
 * making one runs initdb (~6 s, ~900 MB). `npm run build` copies it beside the bundle; the
 * Dockerfile makes it in a stage of its own, whose cached layer a rebuild after a code change reuses
 * (initdb writes a random system identifier and the time, so two runs never make the same bytes).
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { tsImport } from "tsx/esm/api";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The template's path in the cache, made first if missing. */
export async function cachedTemplate() {
  const template = await tsImport("../service/src/store/pglite-template.ts", import.meta.url);
  const cache = join(root, "node_modules/.cache/agentport");
  const file = join(cache, template.templateName());
  if (!existsSync(file)) {
    mkdirSync(cache, { recursive: true });
    await template.writeTemplate(cache);
  }
  return file;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(await cachedTemplate());
