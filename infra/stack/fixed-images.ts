/**
 * A component's image repository or tag set in a stack (`image.frontend.tag`, or
 * `frontend.image.tag`): refused by that path, saying why, instead of zod's "unknown parameter" on
 * its parent. The reference fixes them: the chart's version pins every component's image.
 */
const FIXED_LEAVES = ["tag", "repository"];
const MESSAGE =
  "is fixed by the release: the platform chart's version pins each component's image (change platform.version; its tags are in infra/platform/values/defaults.ts)";

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** The refusals, and the parent paths whose "unknown parameter" they replace. */
export function fixedImageIssues(raw: Record<string, unknown>): {
  issues: Array<{ path: string; message: string }>;
  replaces: Set<string>;
} {
  const issues: Array<{ path: string; message: string }> = [];
  const replaces = new Set<string>();
  const check = (parent: string, value: unknown) => {
    if (!isObject(value)) return;
    const leaves = Object.keys(value).filter((k) => FIXED_LEAVES.includes(k));
    for (const leaf of leaves) issues.push({ path: `${parent}.${leaf}`, message: MESSAGE });
    if (leaves.length) replaces.add(parent);
  };
  const image = raw.image;
  if (isObject(image)) for (const [component, value] of Object.entries(image)) check(`image.${component}`, value);
  for (const [group, value] of Object.entries(raw)) if (isObject(value)) check(`${group}.image`, value.image);
  return { issues, replaces };
}
