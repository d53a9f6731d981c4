import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { API_DB_LOGINS, dbLoginPlan } from "../../infra/api/db-logins.js";
import { provisionKey, provisionScriptHash } from "../../infra/api/db-role-job.js";

const source = readFileSync(new URL("../../service/src/cli/provision-db.ts", import.meta.url), "utf8");
const lock = readFileSync(new URL("../../package-lock.json", import.meta.url), "utf8");

describe("the DB-role Job's key: what it provisions, never the API's code", () => {
  it("changes with the provisioning script or its PostgreSQL client, and with the logins", () => {
    const base = provisionKey([...API_DB_LOGINS], provisionScriptHash(source, lock));
    expect(provisionKey([...API_DB_LOGINS])).toBe(base);
    expect(provisionKey([...API_DB_LOGINS], provisionScriptHash(`${source}\n// changed`, lock))).not.toBe(base);
    const otherPg = lock.replace(/("node_modules\/pg": \{\s*"version": ")[^"]+/, "$10.0.1");
    expect(otherPg).not.toBe(lock);
    expect(provisionKey([...API_DB_LOGINS], provisionScriptHash(source, otherPg))).not.toBe(base);
    expect(provisionKey(["agentport_api_a"], provisionScriptHash(source, lock))).not.toBe(base);
    expect(provisionKey([...API_DB_LOGINS].reverse(), provisionScriptHash(source, lock))).toBe(base);
  });
});

describe("alternating logins: each rotation moves the pods to the login whose password just changed", () => {
  it("switches the active login at every generation and regenerates only its password", () => {
    for (let n = 0; n < 6; n++) {
      const now = dbLoginPlan(n);
      const next = dbLoginPlan(n + 1);
      expect(next.active).not.toBe(now.active);
      // The pods still running keep a password nothing changed...
      expect(next.keepers[now.active]).toBe(now.keepers[now.active]);
      // ...and the login they move to gets a new one.
      expect(next.keepers[next.active]).not.toBe(now.keepers[next.active]);
      expect(next.keepers[next.active]).toBe(n + 1);
    }
    expect(dbLoginPlan(0)).toEqual({ active: "agentport_api_a", keepers: { agentport_api_a: 0, agentport_api_b: -1 } });
    expect(() => dbLoginPlan(-1)).toThrow();
  });
});
