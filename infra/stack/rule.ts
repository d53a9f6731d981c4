/** A cross-field rule: runs when every group it reads has parsed. */
import type { GroupName, StackSpec } from "./schema.js";
import { isStandIn } from "./sensitive.js";

export type Report = (path: string, message: string) => void;

export interface Rule {
  /** Groups the rule reads. */
  needs: readonly GroupName[];
  check(spec: StackSpec, report: Report): void;
}

export const rule = (needs: readonly GroupName[], check: Rule["check"]): Rule => ({ needs, check });

/** Reports each path whose value is missing or empty. */
export function requireAll(report: Report, why: string, entries: Record<string, unknown>): void {
  for (const [path, value] of Object.entries(entries)) {
    if (value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0)) {
      report(path, `is required ${why}`);
    }
  }
}

/** True when a value is set and not a secret stand-in (so its format can be checked). */
export const checkable = (v: unknown): v is string => typeof v === "string" && v !== "" && !isStandIn(v);
