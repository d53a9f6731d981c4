/** A budget as configured: its limit in micro-dollars and its period as written (`30d`, `1mo`, `total`). */
export interface BudgetSetting {
  limitMicros: number;
  period: string;
}
