/**
 * The API's database logins on a managed sqldb, and how a password rotates without a failed
 * request. PostgreSQL keeps one password per role, so a role's new password locks out every pod
 * still holding the old one until it is replaced. Instead, two login roles share the owner role
 * (provision-db.ts): the stack's `api.dbPasswordGeneration` picks the active one (even: `_a`, odd:
 * `_b`), and a login's password is regenerated only when it becomes active again. Raising the
 * generation by one gives the idle login a new password (the Job runs before the Deployment), then
 * rolls the pods onto it; the pods still running on the other login keep connecting with a
 * password nothing changed. A rotation every time the generation goes up, each login's password
 * living two generations.
 */
import { API_DB_ROLE } from "./settings.js";

export const API_DB_LOGINS = [`${API_DB_ROLE}_a`, `${API_DB_ROLE}_b`] as const;
export type ApiDbLogin = (typeof API_DB_LOGINS)[number];

export interface DbLoginPlan {
  /** The login the pods connect as. */
  active: ApiDbLogin;
  /**
   * Per login, the last generation at or before this one in which it was active (-1: never): a
   * password's keeper, so a login's password changes exactly when it becomes active.
   */
  keepers: Record<ApiDbLogin, number>;
}

export function dbLoginPlan(generation: number): DbLoginPlan {
  if (!Number.isInteger(generation) || generation < 0) throw new Error("the generation is a whole number from 0");
  const lastActive = (slot: number) => (generation % 2 === slot ? generation : generation - 1);
  return {
    active: API_DB_LOGINS[generation % 2],
    keepers: { [API_DB_LOGINS[0]]: lastActive(0), [API_DB_LOGINS[1]]: lastActive(1) },
  };
}
