/** Counts the files under a directory (a local blob store), to prove an upload left nothing behind. */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

export function countFiles(dir: string): number {
  if (!existsSync(dir)) return 0;
  let n = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    n += entry.isDirectory() ? countFiles(join(dir, entry.name)) : 1;
  }
  return n;
}
