/** A default budget as the environment sets it (BUDGET_KEY_*, BUDGET_PROJECT_*). */
import { z } from "zod";
import type { BudgetSetting } from "../domain/spend/budget-setting.js";
import { microsOf } from "../domain/spend/cost.js";
import { PERIOD_SYNTAX, parsePeriod } from "../domain/spend/budget-period.js";
import { read, type Env } from "./env-readers.js";

/** A default budget: `<PREFIX>_USD` (dollars, up to 6 decimals) and `<PREFIX>_PERIOD` (default 1mo). */
export function budgetSetting(env: Env, prefix: string): BudgetSetting | undefined {
  const amount = z
    .string()
    .trim()
    .regex(/^\d{1,10}(\.\d{1,6})?$/)
    .transform((v) => microsOf(Number(v)))
    .pipe(z.number().int().positive());
  const limitMicros = read<number | undefined>(
    env,
    `${prefix}_USD`,
    amount,
    undefined,
    "a positive amount of USD such as 10 or 2.5",
  );
  const period = read(
    env,
    `${prefix}_PERIOD`,
    z.string().refine((p) => parsePeriod(p) !== undefined),
    "1mo",
    PERIOD_SYNTAX,
  );
  return limitMicros === undefined ? undefined : { limitMicros, period };
}
