/** The API's two database logins' passwords, each regenerated when its login becomes active (db-logins.ts). */
import type * as pulumi from "@pulumi/pulumi";
import { RandomPassword } from "@pulumi/random/randomPassword.js";
import { API_DB_LOGINS, dbLoginPlan, type ApiDbLogin } from "./db-logins.js";

export function apiDbLogins(generation: number): {
  active: ApiDbLogin;
  passwords: Record<ApiDbLogin, pulumi.Output<string>>;
} {
  const { active, keepers } = dbLoginPlan(generation);
  const passwords = Object.fromEntries(
    API_DB_LOGINS.map((login) => [
      login,
      // A changed keeper replaces the password: exactly when the login becomes active again.
      new RandomPassword(`api-db-password-${login.slice(-1)}`, {
        length: 32,
        special: false,
        minUpper: 1,
        minLower: 1,
        minNumeric: 1,
        keepers: { generation: String(keepers[login]) },
      }).result,
    ]),
  ) as Record<ApiDbLogin, pulumi.Output<string>>;
  return { active, passwords };
}
