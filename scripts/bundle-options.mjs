/**
 * How the service is bundled (esbuild), shared by `npm run build` (build.mjs) and the chat bench's
 * relay ceiling, which must run as the artifact does to be compared with it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Kept out of the bundle, installed beside it:
 * - @electric-sql/pglite loads its WASM, data bundle and extensions from files next to its own
 *   modules (`new URL(…, import.meta.url)`), which a bundle would break.
 * - pg-native is pg's optional native driver: never installed, only referenced.
 * Bundled on purpose: the AWS and Azure SDKs, fastify, pg and pino read no files beside their own
 * modules (the service starts pino without transports, so no thread-stream worker file is needed).
 *
 * No keepNames: nothing compares function or class names — every error class sets `this.name`
 * explicitly — and without minify esbuild only renames on a collision (none in this bundle).
 */
export const INSTALLED = ["@electric-sql/pglite"];
const NEVER_PRESENT = ["pg-native"];

/** esbuild's options for the service's entries; the caller adds `entryPoints` and `outdir`. */
export function bundleOptions(root) {
  const rootPkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  return {
    bundle: true,
    splitting: true, // server and CLI share one copy of the store, keys and config code
    chunkNames: "[name]-[hash]", // beside the entries: migrate.ts finds ./migrations from its own URL
    format: "esm",
    platform: "node",
    // The oldest Node that package.json's engines accepts (dist/package.json declares the same).
    target: `node${/\d+(?:\.\d+){0,2}/.exec(rootPkg.engines.node)[0]}`,
    external: [...INSTALLED, ...NEVER_PRESENT],
    define: { AGENTPORT_VERSION: JSON.stringify(rootPkg.version) },
    // Bundled CommonJS dependencies call require() for Node built-ins; ESM output has no require.
    banner: {
      js: "import { createRequire as __agentportRequire } from 'node:module'; const require = __agentportRequire(import.meta.url);",
    },
    legalComments: "linked",
    logLevel: "warning",
  };
}
