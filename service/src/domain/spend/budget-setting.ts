/** A default budget, as the environment or the stack sets it (config.ts reads it). */
export interface BudgetSetting {
  limitMicros: number;
  period: string;
}
