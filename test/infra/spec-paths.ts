/**
 * The conformance checklist: one row per parameter path of the deployment reference
 * (docs/spec/deployment.md), in sections under spec-paths/ following its order. spec-paths.test.ts runs every check a
 * row declares and fails when this table and the reference's paths drift apart.
 *
 * Columns of a row (each optional; a missing one says the check does not apply, `note` says why):
 * - default: what the values render at the path when the stack leaves it unset. CHART = nothing
 *   (the chart's own default applies, the reference hides it); GENERATED(v) = the generated secret.
 * - override: a value a stack may set, rendered as given (secrets: accepted as a `secure:` entry).
 * - invalid: a value the validator refuses, naming the path.
 * - fixed: a changed value refused because the reference says it is not to be changed.
 * - required: the value is demanded (refused naming the path when missing) with the feature on.
 * - base: the stack the checks start from: MINIMAL (spec-paths/row.ts), a repository stack, plus `on` (edit);
 *   `feature` switches a feature on for the override, invalid and required checks only (the
 *   default and the fixed value are checked with the feature as the stack leaves it).
 */
import { COMPONENT_ROWS } from "./spec-paths/components.js";
import { DATA_ROWS } from "./spec-paths/data.js";
import { OPERATIONS_ROWS } from "./spec-paths/operations.js";
import { PLATFORM_ROWS } from "./spec-paths/platform.js";
import type { SpecRow } from "./spec-paths/row.js";
import { WEB_ROWS } from "./spec-paths/web.js";

export { CHART, isGenerated, MINIMAL, type SpecRow } from "./spec-paths/row.js";

export const SPEC_PATHS: readonly SpecRow[] = [
  ...PLATFORM_ROWS,
  ...WEB_ROWS,
  ...DATA_ROWS,
  ...OPERATIONS_ROWS,
  ...COMPONENT_ROWS,
];
