/** Where a budget check reads a period's spend: the edges between minute rows, hourly and daily sums. */
import { describe, expect, it } from "vitest";
import { recordedSpend, spendEdges } from "../../../../../../service/src/domain/spend/recorded-spend.js";
import type { Queryable } from "../../../../../../service/src/store/db.js";

const at = (iso: string) => Date.parse(iso);
const iso = (e: { minutes: number; hours: number; days: number }) => ({
  minutes: new Date(e.minutes).toISOString(),
  hours: new Date(e.hours).toISOString(),
  days: new Date(e.days).toISOString(),
});

describe("spendEdges", () => {
  it("starts inside a minute at the next minute, then the next whole hour, then the next whole day (UTC)", () => {
    expect(iso(spendEdges(at("2026-03-01T01:23:20.017Z")))).toEqual({
      minutes: "2026-03-01T01:24:00.000Z",
      hours: "2026-03-01T02:00:00.000Z",
      days: "2026-03-02T00:00:00.000Z",
    });
  });

  it("keeps an edge the start is already on, so no part reads a width it need not", () => {
    expect(iso(spendEdges(at("2026-03-01T00:00:00Z")))).toEqual({
      minutes: "2026-03-01T00:00:00.000Z",
      hours: "2026-03-01T00:00:00.000Z",
      days: "2026-03-01T00:00:00.000Z",
    });
    expect(iso(spendEdges(at("2026-03-01T07:00:00Z")))).toEqual({
      minutes: "2026-03-01T07:00:00.000Z",
      hours: "2026-03-01T07:00:00.000Z",
      days: "2026-03-02T00:00:00.000Z",
    });
    expect(iso(spendEdges(at("2026-03-01T07:13:00Z")))).toEqual({
      minutes: "2026-03-01T07:13:00.000Z",
      hours: "2026-03-01T08:00:00.000Z",
      days: "2026-03-02T00:00:00.000Z",
    });
  });

  it("rounds a start a millisecond past an edge up to the next, and the last minute of a day into the next day", () => {
    expect(iso(spendEdges(at("2026-03-01T23:59:00.001Z")))).toEqual({
      minutes: "2026-03-02T00:00:00.000Z",
      hours: "2026-03-02T00:00:00.000Z",
      days: "2026-03-02T00:00:00.000Z",
    });
    expect(spendEdges(0)).toEqual({ minutes: 0, hours: 0, days: 0 });
  });
});

describe("recordedSpend", () => {
  const db = (spent: string | null) => {
    const calls: unknown[][] = [];
    const q: Queryable = {
      query: async <T>(_sql: string, params?: unknown[]) => {
        calls.push(params ?? []);
        return { rows: [{ spent }] as T[], rowCount: 1 };
      },
    };
    return { q, calls };
  };

  it("asks one statement with the three edges, the key only when one is given", async () => {
    const project = db("1234");
    expect(await recordedSpend(project.q, { projectId: "p" }, at("2026-03-01T01:23:20Z"))).toBe(1234);
    expect(project.calls).toEqual([
      ["p", "2026-03-01T01:24:00.000Z", "2026-03-01T02:00:00.000Z", "2026-03-02T00:00:00.000Z"],
    ]);
    const key = db(null);
    expect(await recordedSpend(key.q, { projectId: "p", keyId: "k" }, 0)).toBe(0);
    expect(key.calls[0]).toEqual([
      "p",
      "1970-01-01T00:00:00.000Z",
      "1970-01-01T00:00:00.000Z",
      "1970-01-01T00:00:00.000Z",
      "k",
    ]);
  });
});
