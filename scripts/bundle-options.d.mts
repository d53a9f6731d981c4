// Types for bundle-options.mjs, which the bench imports from TypeScript.
import type { BuildOptions } from "esbuild";

export const INSTALLED: string[];
export function bundleOptions(root: string): BuildOptions;
