/**
 * The stack's default budgets (`api.budgets`): validated as the service reads them (a period it
 * knows, USD exact to the micro-dollar, a key's default under the project's), and written into the
 * API's environment as variables the service accepts at start.
 */
import { describe, expect, it } from "vitest";
import { validateStack, type Issue } from "../../infra/stack/validate.js";
import { serviceSettings } from "../../infra/api/settings.js";
import { loadConfig } from "../../service/src/config.js";
import { rawStack, specOf } from "./fixtures.js";

const issuesOf = (edit: (raw: Record<string, any>) => void): Issue[] => {
  const raw = rawStack("prod-aws");
  edit(raw);
  const v = validateStack(raw);
  return v.ok ? [] : v.issues;
};

describe("api.budgets", () => {
  it("refuses a period the service does not know, an amount it cannot keep, and a key's default above the project's", () => {
    const issues = issuesOf((r) =>
      Object.assign(r.api, {
        budgets: {
          key: { limitUsd: 0.0000001, period: "1w" },
          project: { limitUsd: -1 },
          webhookUrl: "ftp://alerts",
        },
      }),
    );
    expect(issues.map((i) => i.path).sort()).toEqual([
      "api.budgets.key.limitUsd",
      "api.budgets.key.period",
      "api.budgets.project.limitUsd",
      "api.budgets.webhookUrl",
    ]);
    const above = issuesOf((r) =>
      Object.assign(r.api, { budgets: { key: { limitUsd: 20, period: "30d" }, project: { limitUsd: 10 } } }),
    );
    expect(above).toEqual([expect.objectContaining({ path: "api.budgets.key.limitUsd" })]);
  });

  it("reaches the service as BUDGET_* variables it accepts", () => {
    const { env } = serviceSettings(
      specOf("prod-aws", (r) =>
        Object.assign(r.api, {
          budgets: {
            key: { limitUsd: 10, period: "30d" },
            project: { limitUsd: 1_000_000_000 },
            webhookUrl: "https://alerts.example.com/budget",
          },
        }),
      ),
    );
    expect(env).toMatchObject({
      BUDGET_KEY_USD: "10",
      BUDGET_KEY_PERIOD: "30d",
      BUDGET_PROJECT_USD: "1000000000",
      BUDGET_PROJECT_PERIOD: "1mo",
      BUDGET_WEBHOOK_URL: "https://alerts.example.com/budget",
    });
    const config = loadConfig({ ...env, JWT_SECRET: "x".repeat(64) });
    expect(config.budgets).toEqual({
      key: { limitMicros: 10_000_000, period: "30d" },
      project: { limitMicros: 1e15, period: "1mo" },
      webhookUrl: "https://alerts.example.com/budget",
    });
    expect(serviceSettings(specOf("prod-aws")).env).not.toHaveProperty("BUDGET_KEY_USD");
  });
});
