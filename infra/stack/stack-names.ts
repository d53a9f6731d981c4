/** The stacks a checkout has: the NAME of every stacks/Pulumi.NAME.yaml. */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The project's stack directory (stackConfigDir of Pulumi.yaml). */
export const STACKS_DIR = fileURLToPath(new URL("../../stacks/", import.meta.url));

export function stackNames(dir: string): string[] {
  return existsSync(dir)
    ? readdirSync(dir)
        .flatMap((f) => /^Pulumi\.(.+)\.yaml$/.exec(f)?.[1] ?? [])
        .sort()
    : [];
}

/** Throws "no stack 'x' (stack files: a, b)" for a name without a stack file: a typo gets the list, not ENOENT. */
export function assertStackExists(stack: string, dir: string): void {
  if (existsSync(join(dir, `Pulumi.${stack}.yaml`))) return;
  const known = stackNames(dir);
  throw new Error(`no stack '${stack}' (stack files: ${known.length ? known.join(", ") : "none"})`);
}
