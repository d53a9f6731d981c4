import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { provisionAppRole } from "../../service/src/cli/provision-db.js";
import { ApiKeys } from "../../service/src/domain/api-keys.js";
import { openStore } from "../../service/src/store/open.js";
import { createTestDatabase, TEST_DATABASE_URL } from "../helpers/store.js";

/** The deployment's Job: the service gets a role of its own, owning its schema and nothing more. */
describe("provision-db: a least-privilege role for the API service (PostgreSQL server)", () => {
  const role = `agentport_t_${randomBytes(4).toString("hex")}`;
  const password = `Pw${randomBytes(12).toString("hex")}`;
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await drop?.();
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS ${pg.escapeIdentifier(role)}`).catch(() => {});
    await admin.end();
  });

  it("creates the role (again without harm), and the service runs on it: migrations, keys, revocation", async () => {
    const db = await createTestDatabase();
    drop = db.drop;
    await provisionAppRole(db.url, role, password, "agentport");
    await provisionAppRole(db.url, role, password, "agentport"); // every `pulumi up` runs it again

    const asApp = new URL(db.url);
    asApp.username = role;
    asApp.password = password;
    const store = await openStore({ databaseUrl: asApp.toString(), databaseSchema: "agentport" });
    try {
      const keys = new ApiKeys(store);
      await keys.start();
      const { record, secret } = await keys.create({ projectId: "default", name: "k", createdBy: "u" });
      expect(await keys.verify(secret)).toMatchObject({ keyId: record.id });
      expect(await keys.delete("default", record.id)).toBe(true); // DELETE + NOTIFY as the app role
      expect(await keys.verify(secret)).toBeUndefined();
      await keys.stop();

      // Nothing beyond its schema: it cannot create tables elsewhere or read other roles' data.
      const direct = new pg.Client({ connectionString: asApp.toString() });
      await direct.connect();
      const refused = await direct.query("CREATE TABLE public.intruder (x int)").catch((e: { code: string }) => e.code);
      expect(refused).toBe("42501");
      const owner = await direct.query<{ owner: string }>("SELECT nspowner::regrole::text AS owner FROM pg_namespace WHERE nspname = 'agentport'");
      expect(owner.rows[0].owner).toBe(role);
      const su = await direct.query<{ rolsuper: boolean }>("SELECT rolsuper FROM pg_roles WHERE rolname = current_user");
      expect(su.rows[0].rolsuper).toBe(false);
      await direct.end();
    } finally {
      await store.close();
    }
  });
});
