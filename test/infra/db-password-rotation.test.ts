import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_DB_LOGINS, dbLoginPlan, type ApiDbLogin } from "../../infra/api/db-logins.js";
import { provisionAppRole } from "../../service/src/cli/provision-db.js";
import { ApiKeys } from "../../service/src/domain/api-keys.js";
import { openStore } from "../../service/src/store/open.js";
import { PgCluster } from "../helpers/pg-cluster.js";

/** Bounded wait on a condition (no timed assertion: the bound only keeps a broken run from hanging). */
async function until(check: () => boolean, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A pod of the API: it holds the DATABASE_URL it started with and opens a fresh connection for
 * every request (the worst case of a pool's churn), writing and reading in the service's schema.
 */
class Pod {
  ok = 0;
  readonly errors: string[] = [];
  private running = true;
  private readonly loop: Promise<void>;

  readonly url: string;

  constructor(url: string) {
    this.url = url;
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const c = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 5000 });
      c.on("error", () => {});
      try {
        await c.connect();
        await c.query("INSERT INTO agentport.rotation_probe (at) VALUES (now())");
        await c.query("SELECT count(*) FROM agentport.rotation_probe");
        this.ok++;
      } catch (err) {
        this.errors.push(`${(err as { code?: string }).code ?? ""} ${(err as Error).message}`);
      } finally {
        await c.end().catch(() => {});
      }
    }
  }

  /** Resolves after `n` more requests than now succeeded (or as many failed). */
  async serves(n: number): Promise<void> {
    const target = this.ok + n;
    await until(() => this.ok >= target || this.errors.length >= n, `${n} requests on ${this.url}`);
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

/**
 * Rotating the API's database password, as `pulumi up` does it after `api.dbPasswordGeneration`
 * goes up: the Job provisions, then the pods roll. Against a real PostgreSQL server that checks
 * passwords (SCRAM-SHA-256), as a managed master (LOGIN CREATEROLE CREATEDB NOSUPERUSER).
 */
describe("database password rotation: no request fails while the Job runs and the pods roll", () => {
  let cluster: PgCluster;
  const suffix = randomBytes(3).toString("hex");
  const database = `rotation_${suffix}`;
  const master = `master_${suffix}`;
  const pods: Pod[] = [];
  const url = (user: string, password: string) =>
    `postgres://${user}:${password}@127.0.0.1:${cluster.port}/${database}`;
  const masterUrl = () => url(master, "master-password");
  /** The password each login gets at a generation: a new one exactly when its keeper moves. */
  const password = (login: ApiDbLogin, keeper: number) => `pw-${login}-${keeper}-${suffix}`;
  const provision = (generation: number) => {
    const { keepers } = dbLoginPlan(generation);
    const logins = Object.fromEntries(API_DB_LOGINS.map((l) => [l, password(l, keepers[l])]));
    return provisionAppRole(masterUrl(), { owner: "agentport_api", logins, schema: "agentport" });
  };
  /** A pod started at this generation: the active login, with the password the Secret holds. */
  const podAt = (generation: number) => {
    const { active, keepers } = dbLoginPlan(generation);
    const pod = new Pod(url(active, password(active, keepers[active])));
    pods.push(pod);
    return pod;
  };
  /** What the API does at start: migrations and a key, as the pod's login. */
  async function serviceStarts(pod: Pod): Promise<void> {
    const store = await openStore({ databaseUrl: pod.url, databaseSchema: "agentport" });
    try {
      const keys = new ApiKeys(store);
      await keys.start();
      const { secret } = await keys.create({ projectId: "default", name: "k", createdBy: "u" });
      expect(await keys.verify(secret)).toBeDefined();
      await keys.stop();
    } finally {
      await store.close();
    }
  }

  beforeAll(async () => {
    cluster = await PgCluster.start({ passwords: true });
    const su = new pg.Client({ connectionString: cluster.url() });
    await su.connect();
    await su.query(`CREATE ROLE ${master} LOGIN CREATEROLE CREATEDB NOSUPERUSER PASSWORD 'master-password'`);
    await su.query(`CREATE DATABASE ${database} OWNER ${master}`);
    await su.end();
  }, 180_000);
  afterAll(async () => {
    await Promise.all(pods.map((p) => p.stop()));
    await cluster?.remove();
  });

  it("the server refuses a wrong password (what the rest relies on)", async () => {
    const c = new pg.Client({ connectionString: url(master, "wrong") });
    await expect(c.connect()).rejects.toMatchObject({ code: "28P01" });
  });

  it("generation 0: the Job provisions, the service starts and serves as the first login", async () => {
    await provision(0);
    const first = new pg.Client({ connectionString: masterUrl() });
    await first.connect();
    await first.query("CREATE TABLE agentport.rotation_probe (at timestamptz)");
    await first.query("ALTER TABLE agentport.rotation_probe OWNER TO agentport_api");
    await first.end();
    const pod = podAt(0);
    await serviceStarts(pod);
    await pod.serves(5);
    expect(pod.errors).toEqual([]);
  }, 120_000);

  it("generations 1 and 2: the running pods keep connecting through the Job and the roll, none fails", async () => {
    for (const generation of [1, 2]) {
      const old = pods.at(-1)!;
      // The Job runs first, while the old pods serve; their login's password is left alone.
      await provision(generation);
      await old.serves(5);
      // The roll: new pods on the other login (migrations and keys included), then the old ones stop.
      const next = podAt(generation);
      await serviceStarts(next);
      await next.serves(5);
      await old.serves(5);
      await old.stop();
      expect(old.errors, `generation ${generation - 1}'s pod`).toEqual([]);
      expect(next.errors, `generation ${generation}'s pod`).toEqual([]);
      expect(new URL(next.url).username).not.toBe(new URL(old.url).username);
    }
  }, 180_000);

  it("the test can fail: changing the password of the login the pods use locks them out at once", async () => {
    const running = pods.at(-1)!;
    const { active } = dbLoginPlan(2);
    const changed = Object.fromEntries(API_DB_LOGINS.map((l) => [l, password(l, l === active ? 99 : 1)]));
    await provisionAppRole(masterUrl(), { owner: "agentport_api", logins: changed, schema: "agentport" });
    await until(() => running.errors.length > 0, "a refused connection");
    expect(running.errors[0]).toMatch(/^28P01 /);
  }, 60_000);
});
