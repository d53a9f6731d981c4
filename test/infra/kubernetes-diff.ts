/**
 * What pulumi-kubernetes' Diff decides for a Secret, written down from its source (the offline plan
 * has no provider to ask): provider/pkg/provider/diff.go makes `.data`, `.stringData` and `.type` of a
 * Secret force a replacement unless the provider's `enableSecretMutable` is on (it is not here), as
 * do `.metadata.name` and `.metadata.namespace` for every kind; provider/pkg/provider/provider.go
 * deletes before it creates only when the object is named in its inputs (not auto-named), keeps
 * that name and stays in its namespace.
 */
type Obj = { metadata?: { name?: string; namespace?: string } } & Record<string, unknown>;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function kubernetesDiff(old: Obj, next: Obj): { replace: boolean; deleteBeforeReplace: boolean } {
  const forceNew = (["data", "stringData", "type"] as const).some((k) => !same(old[k], next[k]));
  const moved = !same(old.metadata?.namespace, next.metadata?.namespace);
  const renamed = next.metadata?.name !== undefined && next.metadata.name !== old.metadata?.name;
  const replace = forceNew || moved || renamed;
  const deleteBeforeReplace = replace && next.metadata?.name !== undefined && !renamed && !moved;
  return { replace, deleteBeforeReplace };
}
