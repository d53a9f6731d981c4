/** Reading values trees by parameter path. Its one home is here, inside the pack; infra/tree.ts re-exports it. */

/** Reads a dotted path (`a.b[0].c`) from a values tree; undefined when any step is absent. */
export function at(tree: unknown, path: string): unknown {
  return path
    .replace(/\[(\d+)\]/g, ".$1")
    .split(".")
    .reduce<unknown>(
      (node, key) => (node && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined),
      tree,
    );
}
