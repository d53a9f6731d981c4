/** The budgets a run is checked against: its key's, from the key's creation, and its project's, from when it was set. */
import { describe, expect, it } from "vitest";
import { runBudgets } from "../../../../../../service/src/domain/spend/run-budgets.js";

const DAY = 86_400_000;

describe("runBudgets", () => {
  it("a run is checked against its key's budget from the key's creation and its project's from when it was set", () => {
    const now = Date.UTC(2026, 4, 10, 12);
    const budgets = runBudgets(
      { keyId: "k1", projectId: "p", budget: { limitMicros: 5, period: "1d" }, createdAtMs: now - 1.5 * DAY },
      { limitMicros: 9, period: "1mo", anchorMs: 0, isDefault: false },
      now,
    );
    expect(budgets.map(({ id, scope, limit, start, end }) => ({ id, scope, limit, start, end }))).toEqual([
      { id: "key:k1", scope: "key", limit: 5, start: now - 0.5 * DAY, end: now + 0.5 * DAY },
      { id: "project:p", scope: "project", limit: 9, start: Date.UTC(2026, 4, 1), end: Date.UTC(2026, 5, 1) },
    ]);
  });

  it("no budget on the key or the project: nothing to check", () => {
    expect(runBudgets({ keyId: "k", projectId: "p" }, undefined, Date.UTC(2026, 4, 10))).toEqual([]);
  });
});
