/**
 * Stryker runs the unit tests in a sandbox copy of the repository, and its copy drops the files'
 * executable bits; the stack validator refuses a post-renderer that is not executable. Restore it.
 */
import { chmodSync, existsSync } from "node:fs";

const EXECUTABLES = ["infra/platform/postrender/docdb-ca.mjs"];

export default function setup(): void {
  for (const file of EXECUTABLES) if (existsSync(file)) chmodSync(file, 0o755);
}
