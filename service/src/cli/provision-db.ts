/**
 * `node provision-db.js`: gives the API service a database role of its own, so it never runs as
 * the database's master user. Run once per deployment (a Kubernetes Job) with the master's URL;
 * idempotent as a managed server's master (not a superuser), so every `pulumi up` may run it
 * again (a changed password is applied).
 *
 *   ADMIN_DATABASE_URL  the master user's URL (only this Job ever sees it)
 *   APP_ROLE            the service's role (default agentport_api)
 *   APP_PASSWORD        its password
 *   DATABASE_SCHEMA     the schema it owns (default agentport); nothing else is granted but CONNECT
 */
import pg from "pg";

export async function provisionAppRole(
  adminUrl: string,
  role: string,
  password: string,
  schema: string,
): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const r = pg.escapeIdentifier(role);
    const s = pg.escapeIdentifier(schema);
    const existing = await client.query<Record<string, boolean>>(
      "SELECT rolsuper, rolcreatedb, rolcreaterole, rolbypassrls, rolreplication FROM pg_roles WHERE rolname = $1",
      [role],
    );
    const exists = existing.rowCount;
    // A role someone raised since cannot be lowered by a managed master (see below): refuse to hand
    // the service more than its schema, and say what an operator with the rights must run.
    const raised = exists
      ? Object.entries(existing.rows[0])
          .filter(([, on]) => on)
          .map(([attr]) => attr.replace(/^rol/, "").toUpperCase())
      : [];
    if (raised.length)
      throw new Error(
        `role ${role} has ${raised.join(", ")}; run ALTER ROLE ${r} ${raised.map((a) => "NO" + a).join(" ")} as a superuser, then re-run`,
      );
    // DDL takes no bind parameters: identifiers and the password literal are escaped by pg.
    const pw = client.escapeLiteral(password);
    // A managed master (RDS master, Azure admin) is LOGIN CREATEROLE CREATEDB NOSUPERUSER: it may
    // create a role and change its login and password, but an ALTER ROLE that names SUPERUSER,
    // CREATEDB or CREATEROLE fails (42501). A created role starts without them; a later run
    // alters only what may change.
    await client.query(
      exists
        ? `ALTER ROLE ${r} WITH LOGIN PASSWORD ${pw}`
        : `CREATE ROLE ${r} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD ${pw}`,
    );
    const db = (await client.query<{ db: string }>("SELECT current_database() AS db")).rows[0].db;
    await client.query(`GRANT CONNECT ON DATABASE ${pg.escapeIdentifier(db)} TO ${r}`);
    // Owning a schema needs membership in its owner's role (PostgreSQL 16 no longer gives it to a
    // role's creator by default; RDS and Azure masters are not superusers).
    await client.query(`GRANT ${r} TO CURRENT_USER`).catch(() => {}); // already a member, or a superuser
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s} AUTHORIZATION ${r}`);
    await client.query(`ALTER SCHEMA ${s} OWNER TO ${r}`);
  } finally {
    await client.end();
  }
}

if (process.argv[1]?.match(/provision-db\.(js|ts)$/)) {
  const env = process.env;
  const missing = ["ADMIN_DATABASE_URL", "APP_PASSWORD"].filter((k) => !env[k]);
  if (missing.length) {
    process.stderr.write(`provision-db: set ${missing.join(" and ")}\n`);
    process.exit(2);
  }
  const role = env.APP_ROLE ?? "agentport_api";
  const schema = env.DATABASE_SCHEMA ?? "agentport";
  try {
    await provisionAppRole(env.ADMIN_DATABASE_URL!, role, env.APP_PASSWORD!, schema);
    process.stdout.write(`provision-db: role ${role} owns schema ${schema}\n`);
  } catch (err) {
    // The SQLSTATE and message only: never the URL, which holds the master password.
    process.stderr.write(`provision-db failed: ${(err as { code?: string }).code ?? ""} ${(err as Error).message}\n`);
    process.exit(1);
  }
}
