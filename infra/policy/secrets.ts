/**
 * Real secret values, which only exist at preview (offline, `secure:` entries are stand-ins): no
 * package placeholder in any input, and the reference's suggested lengths in the platform's values.
 */
import { PLACEHOLDER, SUGGESTED_SECRET_LENGTHS } from "./reference.js";
import { at } from "./tree.js";
import { stringLeaves, violation, type PolicyInput, type Violation } from "./resource.js";

const RELEASE = "kubernetes:helm.sh/v3:Release";

/** Any input holding a placeholder the package ships (`<REPLACE_WITH_YOUR_…>` in any case). */
export function placeholders(r: PolicyInput): Violation[] {
  return stringLeaves(r.props)
    .filter(([, v]) => PLACEHOLDER.test(v))
    .map(([path]) =>
      violation(
        r,
        `${path} holds a package placeholder; set the real value with \`pulumi config set --secret --path\``,
      ),
    );
}

/** The Release's secrets shorter than the reference suggests (unknown ones are generated at that length). */
export function shortSecrets(r: PolicyInput): Violation[] {
  if (r.type !== RELEASE) return [];
  return Object.entries(SUGGESTED_SECRET_LENGTHS).flatMap(([path, min]) => {
    const value = at(r.props.values, path);
    if (typeof value !== "string" || value.length >= min) return [];
    return [
      violation(
        r,
        `values.${path} is ${value.length} characters; the reference suggests at least ${min} (a random string)`,
      ),
    ];
  });
}

/** The stand-in digest a stack file ships until the release's real one is pinned: 64 zeros. */
export const PLACEHOLDER_DIGEST = `@sha256:${"0".repeat(64)}`;

/** An image pinned to the placeholder digest: no release has it, so the pods could never start. */
export function placeholderDigests(r: PolicyInput): Violation[] {
  return stringLeaves(r.props)
    .filter(([, v]) => v.endsWith(PLACEHOLDER_DIGEST))
    .map(([path]) =>
      violation(
        r,
        `${path} is pinned to the placeholder digest (all zeros): set api.image to the release's digest from its release notes`,
      ),
    );
}
