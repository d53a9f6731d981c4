/** Budget periods: what parses, and the window holding a time on each side of every boundary. */
import { describe, expect, it } from "vitest";
import {
  MAX_PERIOD_MS,
  PERIOD_SYNTAX,
  parsePeriod,
  periodWindow,
} from "../../../../../../service/src/domain/spend/budget-period.js";

const [SEC, MIN, HOUR, DAY] = [1_000, 60_000, 3_600_000, 86_400_000];

describe("parsePeriod", () => {
  it("reads LiteLLM's durations in each unit, a calendar month and total", () => {
    expect(parsePeriod("30s")).toEqual({ kind: "duration", ms: 30 * SEC });
    expect(parsePeriod("15m")).toEqual({ kind: "duration", ms: 15 * MIN });
    expect(parsePeriod("12h")).toEqual({ kind: "duration", ms: 12 * HOUR });
    expect(parsePeriod("7d")).toEqual({ kind: "duration", ms: 7 * DAY });
    expect(parsePeriod("1s")).toEqual({ kind: "duration", ms: SEC });
    expect(parsePeriod("9999999s")).toEqual({ kind: "duration", ms: 9_999_999 * SEC });
    expect(parsePeriod("1mo")).toEqual({ kind: "month" });
    expect(parsePeriod("total")).toEqual({ kind: "total" });
  });

  it("up to ten years, inclusive", () => {
    expect(MAX_PERIOD_MS).toBe(3650 * DAY);
    expect(parsePeriod("3650d")).toEqual({ kind: "duration", ms: MAX_PERIOD_MS });
    expect(parsePeriod("87600h")).toEqual({ kind: "duration", ms: MAX_PERIOD_MS });
    expect(parsePeriod("3651d")).toBeUndefined();
    expect(parsePeriod("87601h")).toBeUndefined();
  });

  it("the syntax an error message quotes names each kind, and its every example parses", () => {
    const examples = PERIOD_SYNTAX.match(/\b(\d+(?:mo|[smhd])|total)\b/g) ?? [];
    expect(examples).toEqual(["30s", "15m", "12h", "7d", "1mo", "total"]);
    for (const text of examples) expect(parsePeriod(text), text).toBeDefined();
  });

  it("refuses everything else", () => {
    const bad = ["", "0s", "01d", "1w", "2mo", "7 d", "-1d", "1.5h", "d", "7", "TOTAL", "total ", "1MO"];
    bad.push("x7d", "7dx", "7d\n", " 7d", "12345678s", "1ms", "7dd", "a7d");
    for (const text of bad) expect(parsePeriod(text), JSON.stringify(text)).toBeUndefined();
  });
});

describe("periodWindow", () => {
  const anchor = Date.UTC(2026, 0, 6, 10); // a Tuesday, 10:00

  it("a duration's windows are counted from the anchor: each boundary starts the next window", () => {
    const week = parsePeriod("7d")!;
    expect(periodWindow(week, anchor, anchor)).toEqual({ start: anchor, end: anchor + 7 * DAY });
    expect(periodWindow(week, anchor, anchor + 7 * DAY - 1)).toEqual({ start: anchor, end: anchor + 7 * DAY });
    expect(periodWindow(week, anchor, anchor + 7 * DAY)).toEqual({ start: anchor + 7 * DAY, end: anchor + 14 * DAY });
    expect(periodWindow(week, anchor, anchor + 30 * DAY)).toEqual({ start: anchor + 28 * DAY, end: anchor + 35 * DAY });
    expect(periodWindow(parsePeriod("2s")!, 1_000, 4_999)).toEqual({ start: 3_000, end: 5_000 });
  });

  it("a time before the anchor is in the window before it", () => {
    const week = parsePeriod("7d")!;
    expect(periodWindow(week, anchor, anchor - 1)).toEqual({ start: anchor - 7 * DAY, end: anchor });
  });

  it("a calendar month is UTC's, whatever the anchor, across the year's end", () => {
    const month = parsePeriod("1mo")!;
    expect(periodWindow(month, 12345, Date.UTC(2026, 1, 28, 23, 59))).toEqual({
      start: Date.UTC(2026, 1, 1),
      end: Date.UTC(2026, 2, 1),
    });
    expect(periodWindow(month, 0, Date.UTC(2026, 2, 1))).toEqual({
      start: Date.UTC(2026, 2, 1),
      end: Date.UTC(2026, 3, 1),
    });
    expect(periodWindow(month, 0, Date.UTC(2026, 2, 1) - 1)).toEqual({
      start: Date.UTC(2026, 1, 1),
      end: Date.UTC(2026, 2, 1),
    });
    expect(periodWindow(month, 0, Date.UTC(2026, 11, 31, 12))).toEqual({
      start: Date.UTC(2026, 11, 1),
      end: Date.UTC(2027, 0, 1),
    });
  });

  it("total never ends", () => {
    expect(periodWindow({ kind: "total" }, 5, anchor)).toEqual({ start: 0, end: null });
  });
});
