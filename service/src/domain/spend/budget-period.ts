/**
 * A budget's period and the window it is in at a given time. Periods are written as LiteLLM writes
 * `budget_duration` (`30s`, `15m`, `12h`, `7d`), or `1mo` (a calendar month, UTC), or `total` (never
 * resets). A duration's windows are counted from the budget's anchor (when it was set), as LiteLLM
 * counts `budget_reset_at` from creation: a `7d` budget set on a Tuesday resets on Tuesdays.
 * Pure: the caller passes the time, so tests need no clock.
 */

export type BudgetPeriod = { kind: "duration"; ms: number } | { kind: "month" } | { kind: "total" };

/** The current window of a budget: its start, and its end (null: never ends). Epoch ms. */
export interface PeriodWindow {
  start: number;
  end: number | null;
}

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** The longest duration accepted: ten years (longer is `total`). */
export const MAX_PERIOD_MS = 3_650 * UNIT_MS.d;

export const PERIOD_SYNTAX = "a duration such as 30s, 15m, 12h or 7d, or 1mo (calendar month, UTC), or total";

/** The period `text` names, or undefined when it names none. */
export function parsePeriod(text: string): BudgetPeriod | undefined {
  if (text === "total") return { kind: "total" };
  if (text === "1mo") return { kind: "month" };
  const m = /^([1-9][0-9]{0,6})([smhd])$/.exec(text);
  if (!m) return undefined;
  const ms = Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
  return ms <= MAX_PERIOD_MS ? { kind: "duration", ms } : undefined;
}

/** The window holding `now`, for a budget anchored at `anchor` (both epoch ms). */
export function periodWindow(period: BudgetPeriod, anchor: number, now: number): PeriodWindow {
  switch (period.kind) {
    case "total":
      return { start: 0, end: null };
    case "month": {
      const d = new Date(now);
      const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
      return { start, end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
    }
    case "duration": {
      const start = anchor + Math.floor((now - anchor) / period.ms) * period.ms;
      return { start, end: start + period.ms };
    }
  }
}
