/**
 * `node provision-db.js`: gives the API service database roles of its own, so it never runs as the
 * database's master user. Run by a Kubernetes Job with the master's URL; idempotent as a managed
 * server's master (not a superuser), so any `up` may run it again.
 *
 * Two login roles share one owner, so a password rotates without a failed request: PostgreSQL keeps
 * one password per role, and pods that started with the old one open new connections until they
 * are replaced. The deployment alternates between the logins: a rotation gives the login no pod
 * uses a new password, then rolls the pods onto it; the previous login keeps its password until the
 * next rotation. Both logins act as the owner (`ALTER ROLE … SET role`), so what either creates
 * belongs to the owner, which owns the schema.
 *
 *   ADMIN_DATABASE_URL  the master user's URL (only this Job ever sees it)
 *   APP_ROLE            the owner role (default agentport_api): NOLOGIN when created here
 *   APP_LOGINS          JSON {"<login role>": "<password>", …}: the logins, members of the owner
 *   DATABASE_SCHEMA     the schema the owner owns (default agentport); nothing else is granted but CONNECT
 */
import pg from "pg";

export interface AppRoles {
  /** Owns the schema and every object in it; created NOLOGIN (an existing one keeps its login). */
  owner: string;
  /** Login role → its password. */
  logins: Record<string, string>;
  schema: string;
}

const ATTRIBUTES = "SELECT rolname, rolsuper, rolcreatedb, rolcreaterole, rolbypassrls, rolreplication FROM pg_roles";

/**
 * Roles someone raised since cannot be lowered by a managed master (see below): refuse to hand the
 * service more than its schema, and say what an operator with the rights must run.
 */
async function existingRoles(client: pg.Client, names: string[]): Promise<Set<string>> {
  const rows = (await client.query<Record<string, string | boolean>>(`${ATTRIBUTES} WHERE rolname = ANY($1)`, [names]))
    .rows;
  for (const row of rows) {
    const raised = Object.entries(row)
      .filter(([k, on]) => k !== "rolname" && on === true)
      .map(([attr]) => attr.replace(/^rol/, "").toUpperCase());
    if (raised.length) {
      const r = pg.escapeIdentifier(String(row.rolname));
      throw new Error(
        `role ${row.rolname} has ${raised.join(", ")}; run ALTER ROLE ${r} ${raised.map((a) => "NO" + a).join(" ")} as a superuser, then re-run`,
      );
    }
  }
  return new Set(rows.map((r) => String(r.rolname)));
}

export async function provisionAppRole(adminUrl: string, roles: AppRoles): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const owner = pg.escapeIdentifier(roles.owner);
    const s = pg.escapeIdentifier(roles.schema);
    const exists = await existingRoles(client, [roles.owner, ...Object.keys(roles.logins)]);
    // A managed master (RDS master, Azure admin) is LOGIN CREATEROLE CREATEDB NOSUPERUSER: it may
    // create a role and change its login and password, but an ALTER ROLE that names SUPERUSER,
    // CREATEDB or CREATEROLE fails (42501). A created role starts without them; a later run alters
    // only what may change. An owner that exists is left as it is: a deployment from before the two
    // logins connects as it, and its pods keep connecting until they are replaced.
    if (!exists.has(roles.owner))
      await client.query(`CREATE ROLE ${owner} WITH NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE`);
    for (const [login, password] of Object.entries(roles.logins)) {
      const r = pg.escapeIdentifier(login);
      // DDL takes no bind parameters: identifiers and the password literal are escaped by pg.
      const pw = client.escapeLiteral(password);
      await client.query(
        exists.has(login)
          ? `ALTER ROLE ${r} WITH LOGIN PASSWORD ${pw}`
          : `CREATE ROLE ${r} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD ${pw}`,
      );
      await client.query(`GRANT ${owner} TO ${r}`);
      // Every session of the login runs as the owner: tables either login creates belong to the owner.
      await client.query(`ALTER ROLE ${r} SET role TO ${client.escapeLiteral(roles.owner)}`);
    }
    const db = (await client.query<{ db: string }>("SELECT current_database() AS db")).rows[0].db;
    await client.query(`GRANT CONNECT ON DATABASE ${pg.escapeIdentifier(db)} TO ${owner}`);
    // Owning a schema needs membership in its owner's role (PostgreSQL 16 no longer gives it to a
    // role's creator by default; RDS and Azure masters are not superusers).
    await client.query(`GRANT ${owner} TO CURRENT_USER`).catch(() => {}); // already a member, or a superuser
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s} AUTHORIZATION ${owner}`);
    await client.query(`ALTER SCHEMA ${s} OWNER TO ${owner}`);
  } finally {
    await client.end();
  }
}

/** APP_LOGINS as the Job's Secret gives it, or why not. */
export function parseLogins(text: string | undefined): Record<string, string> | string {
  try {
    const parsed = JSON.parse(text ?? "") as unknown;
    if (
      parsed &&
      typeof parsed === "object" &&
      !Array.isArray(parsed) &&
      Object.keys(parsed).length > 0 &&
      Object.values(parsed).every((v) => typeof v === "string" && v !== "")
    )
      return parsed as Record<string, string>;
  } catch {
    // reported below
  }
  return 'APP_LOGINS must be a JSON object {"<login role>": "<password>", …}';
}

if (process.argv[1]?.match(/provision-db\.(js|ts)$/)) {
  const env = process.env;
  const logins = parseLogins(env.APP_LOGINS);
  const problem = !env.ADMIN_DATABASE_URL ? "set ADMIN_DATABASE_URL" : typeof logins === "string" ? logins : undefined;
  if (problem) {
    process.stderr.write(`provision-db: ${problem}\n`);
    process.exit(2);
  }
  const owner = env.APP_ROLE ?? "agentport_api";
  const schema = env.DATABASE_SCHEMA ?? "agentport";
  try {
    await provisionAppRole(env.ADMIN_DATABASE_URL!, { owner, logins: logins as Record<string, string>, schema });
    const names = Object.keys(logins).join(", ");
    process.stdout.write(`provision-db: role ${owner} owns schema ${schema}; logins ${names}\n`);
  } catch (err) {
    // The SQLSTATE and message only: never the URL, which holds the master password.
    process.stderr.write(`provision-db failed: ${(err as { code?: string }).code ?? ""} ${(err as Error).message}\n`);
    process.exit(1);
  }
}
