import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { provisionAppRole } from "../../service/src/cli/provision-db.js";
import { ApiKeys } from "../../service/src/domain/api-keys.js";
import { openStore } from "../../service/src/store/open.js";
import { TEST_DATABASE_URL } from "../helpers/store.js";

async function asSuperuser<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/**
 * Whether `password` logs the role in: checked against the server's SCRAM-SHA-256 verifier the
 * way the server checks a client's proof (RFC 5802: StoredKey = H(HMAC(SaltedPassword, "Client
 * Key"))). The test server trusts every local connection, so a login attempt proves nothing.
 */
async function passwordLogsIn(role: string, password: string): Promise<boolean> {
  const row = await asSuperuser((c) =>
    c.query<{ v: string }>("SELECT rolpassword AS v FROM pg_authid WHERE rolname = $1", [role]),
  );
  const m = /^SCRAM-SHA-256\$(\d+):([^$]+)\$([^:]+):/.exec(row.rows[0]?.v ?? "");
  if (!m) throw new Error(`${role} has no SCRAM verifier`);
  const salted = pbkdf2Sync(password, Buffer.from(m[2], "base64"), Number(m[1]), 32, "sha256");
  const storedKey = createHash("sha256")
    .update(createHmac("sha256", salted).update("Client Key").digest())
    .digest("base64");
  return storedKey === m[3];
}

/**
 * The deployment's Job: the service gets a role of its own, owning its schema and nothing more.
 * Run as a managed server's master (RDS master, Azure admin: LOGIN CREATEROLE CREATEDB
 * NOSUPERUSER, owning the database), the way every `pulumi up` after an image change runs it.
 */
describe("provision-db: a least-privilege role for the API service, as a managed master (PostgreSQL server)", () => {
  const suffix = randomBytes(4).toString("hex");
  const master = `agentport_m_${suffix}`;
  const database = `agentport_d_${suffix}`;
  const role = `agentport_t_${suffix}`;
  const login = `${role}_a`;
  const roles = (password: string, schema = "agentport") => ({ owner: role, logins: { [login]: password }, schema });
  const firstPassword = `Pw${randomBytes(12).toString("hex")}`;
  const secondPassword = `Pw${randomBytes(12).toString("hex")}`;
  const url = (user: string, password: string) => {
    const u = new URL(TEST_DATABASE_URL);
    u.username = user;
    u.password = password;
    u.pathname = `/${database}`;
    return u.toString();
  };
  const masterUrl = url(master, "master-password");

  beforeAll(async () => {
    await asSuperuser(async (c) => {
      await c.query(`CREATE ROLE ${master} LOGIN CREATEROLE CREATEDB NOSUPERUSER PASSWORD 'master-password'`);
      await c.query(`CREATE DATABASE ${database} OWNER ${master}`);
    });
  });
  afterAll(async () => {
    await asSuperuser(async (c) => {
      await c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await c.query(`DROP ROLE IF EXISTS ${login}`);
      await c.query(`DROP ROLE IF EXISTS ${role}`);
      await c.query(`DROP ROLE IF EXISTS ${master}`);
    });
  });

  it("runs twice with a password change in between: the new password logs in, the old one does not", async () => {
    await provisionAppRole(masterUrl, roles(firstPassword));
    expect(await passwordLogsIn(login, firstPassword)).toBe(true);
    // The next run: a rotated password replaces the Job, which runs again.
    await provisionAppRole(masterUrl, roles(secondPassword));
    expect(await passwordLogsIn(login, secondPassword)).toBe(true);
    expect(await passwordLogsIn(login, firstPassword)).toBe(false);
    const attrs = await asSuperuser((c) =>
      c.query(
        "SELECT rolname, rolcanlogin, rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname = ANY($1) ORDER BY rolname",
        [[role, login]],
      ),
    );
    const none = { rolsuper: false, rolcreatedb: false, rolcreaterole: false };
    expect(attrs.rows).toEqual([
      { rolname: role, rolcanlogin: false, ...none },
      { rolname: login, rolcanlogin: true, ...none },
    ]);
  });

  it("refuses an existing role raised beyond its schema (a managed master cannot lower it), naming the attribute", async () => {
    const raised = `agentport_r_${suffix}`;
    await asSuperuser((c) => c.query(`CREATE ROLE ${raised} LOGIN CREATEDB BYPASSRLS`));
    try {
      await expect(
        provisionAppRole(masterUrl, { owner: raised, logins: { [login]: firstPassword }, schema: "agentport_raised" }),
      ).rejects.toThrow(/has CREATEDB, BYPASSRLS; run ALTER ROLE/);
      const schema = await asSuperuser((c) => c.query("SELECT 1 FROM pg_namespace WHERE nspname = 'agentport_raised'"));
      expect(schema.rowCount).toBe(0);
    } finally {
      await asSuperuser((c) => c.query(`DROP ROLE IF EXISTS ${raised}`));
    }
  });

  it("the service runs on the role: migrations, keys, revocation, and nothing beyond its schema", async () => {
    await provisionAppRole(masterUrl, roles(secondPassword)); // a third run, also harmless
    const asApp = url(login, secondPassword);
    const store = await openStore({ databaseUrl: asApp, databaseSchema: "agentport" });
    try {
      const keys = new ApiKeys(store);
      await keys.start();
      const { record, secret } = await keys.create({ projectId: "default", name: "k", createdBy: "u" });
      expect(await keys.verify(secret)).toMatchObject({ keyId: record.id });
      expect(await keys.delete("default", record.id)).toBe(true); // DELETE + NOTIFY as the app role
      expect(await keys.verify(secret)).toBeUndefined();
      await keys.stop();

      const direct = new pg.Client({ connectionString: asApp });
      await direct.connect();
      const refused = await direct.query("CREATE TABLE public.intruder (x int)").catch((e: { code: string }) => e.code);
      expect(refused).toBe("42501");
      const owner = await direct.query<{ owner: string }>(
        "SELECT nspowner::regrole::text AS owner FROM pg_namespace WHERE nspname = 'agentport'",
      );
      expect(owner.rows[0].owner).toBe(role);
      await direct.end();
    } finally {
      await store.close();
    }
  });
});
