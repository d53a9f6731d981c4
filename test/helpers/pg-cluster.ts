/**
 * A private PostgreSQL cluster for tests: the distribution's initdb and pg_ctl in a temporary
 * directory, on a free loopback port, trust auth. Run as the `postgres` user when the tests run
 * as root (initdb refuses root). Fault tests kill it, freeze it (SIGSTOP every process of the
 * cluster: a silent network partition as far as clients can tell) and restart it. Every wait is
 * bounded.
 */
import { execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

/** Directory holding initdb and pg_ctl: PATH first, then Debian's versioned layout. */
export function pgBinDir(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(":"))
    if (dir && existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) return dir;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0], "bin") : undefined;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
      .once("error", reject)
      .listen(0, "127.0.0.1", () => {
        const { port } = s.address() as { port: number };
        s.close(() => resolve(port));
      });
  });
}

/** The uid/gid to run PostgreSQL as: postgres when we are root, ourselves otherwise. */
function clusterUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  return { uid, gid };
}

/** True when a PostgreSQL at `url` accepts a connection within `ms`. */
export async function answers(url: string, ms = 3000): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: ms });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} within ${ms} ms`);
}

export class PgCluster {
  readonly root: string;
  readonly dataDir: string;
  readonly port: number;
  private readonly bin: string;
  private readonly user?: { uid: number; gid: number };
  /** With TLS: the CA that signed the server's certificate (PEM file), for clients to trust. */
  caFile?: string;

  private constructor(root: string, port: number, bin: string, user?: { uid: number; gid: number }) {
    this.root = root;
    this.dataDir = join(root, "data");
    this.port = port;
    this.bin = bin;
    this.user = user;
  }

  /**
   * initdb + start; resolves once the server accepts connections. `tls`: a server certificate for
   * 127.0.0.1 from a private CA. `passwords`: every role but the superuser `postgres` logs in with
   * its password (SCRAM-SHA-256), as on a managed server.
   */
  static async start(opts: { tls?: boolean; passwords?: boolean } = {}): Promise<PgCluster> {
    const bin = pgBinDir();
    if (!bin) throw new Error("PostgreSQL server binaries (initdb, pg_ctl) not found: install the postgresql package");
    const root = mkdtempSync(join(tmpdir(), "agentport-pg-"));
    const user = clusterUser();
    if (user) chownSync(root, user.uid, user.gid);
    const cluster = new PgCluster(root, await freePort(), bin, user);
    await cluster.exec(
      "initdb",
      ["-D", cluster.dataDir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"],
      120_000,
    );
    if (opts.tls) cluster.makeCertificates();
    if (opts.passwords)
      writeFileSync(
        join(cluster.dataDir, "pg_hba.conf"),
        "local all all trust\nhost all postgres 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n",
      );
    await cluster.startServer();
    return cluster;
  }

  url(database = "postgres"): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** Starts the server on the same port and data; after kill() this is a restart with recovery. */
  async startServer(): Promise<void> {
    // fsync off: a test cluster need not survive a machine crash; a process crash (kill()) loses nothing, since committed WAL is in the page cache.
    const tls = this.caFile
      ? ` -c ssl=on -c ssl_cert_file=${join(this.root, "server.crt")} -c ssl_key_file=${join(this.root, "server.key")}`
      : "";
    const options = `-c listen_addresses=127.0.0.1 -p ${this.port} -k ${this.root} -c fsync=off -c full_page_writes=off${tls}`;
    // pg_ctl -w waits for the server to accept connections; spawn detached so it outlives nothing of ours.
    await this.exec(
      "pg_ctl",
      ["start", "-w", "-t", "60", "-D", this.dataDir, "-l", join(this.root, "server.log"), "-o", options],
      90_000,
    );
    await until(() => answers(this.url(), 2000), 30_000, "the private PostgreSQL did not accept connections");
  }

  /** A private CA and a server certificate for 127.0.0.1 signed by it (openssl). */
  private makeCertificates(): void {
    const f = (name: string) => join(this.root, name);
    const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: "ignore", timeout: 30_000 });
    openssl(
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "2",
      "-subj",
      "/CN=agentport test CA",
      "-keyout",
      f("ca.key"),
      "-out",
      f("ca.crt"),
    );
    openssl(
      "req",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-subj",
      "/CN=127.0.0.1",
      "-keyout",
      f("server.key"),
      "-out",
      f("server.csr"),
    );
    writeFileSync(f("san.ext"), "subjectAltName=IP:127.0.0.1\n");
    openssl(
      "x509",
      "-req",
      "-in",
      f("server.csr"),
      "-CA",
      f("ca.crt"),
      "-CAkey",
      f("ca.key"),
      "-CAcreateserial",
      "-days",
      "2",
      "-extfile",
      f("san.ext"),
      "-out",
      f("server.crt"),
    );
    chmodSync(f("server.key"), 0o600);
    if (this.user) for (const name of ["server.key", "server.crt"]) chownSync(f(name), this.user.uid, this.user.gid);
    this.caFile = f("ca.crt");
  }

  /** Every process of the cluster: the postmaster and its children. */
  pids(): number[] {
    const postmaster = this.postmasterPid();
    if (!postmaster) return [];
    const children = readdirSync("/proc")
      .filter((d) => /^\d+$/.test(d))
      .filter((d) => {
        try {
          // Field 4 of /proc/PID/stat is the parent pid (after the parenthesised command name).
          const stat = readFileSync(`/proc/${d}/stat`, "utf8");
          return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === postmaster;
        } catch {
          return false;
        }
      })
      .map(Number);
    return [postmaster, ...children];
  }

  private postmasterPid(): number | undefined {
    try {
      return Number(readFileSync(join(this.dataDir, "postmaster.pid"), "utf8").split("\n")[0]) || undefined;
    } catch {
      return undefined;
    }
  }

  /** A crash: SIGKILL the postmaster and its children; resolves once none is left. */
  async kill(): Promise<void> {
    const pids = this.pids();
    for (const pid of pids) signal(pid, "SIGKILL");
    await until(async () => pids.every((p) => !alive(p)), 15_000, "the killed PostgreSQL processes did not exit");
    // The dead postmaster may linger as a zombie until whoever adopted it reaps it, and the
    // next postmaster would take its lock files for a live server's: the owner is gone, drop it.
    for (const lock of [
      join(this.dataDir, "postmaster.pid"),
      join(this.root, `.s.PGSQL.${this.port}.lock`),
      join(this.root, `.s.PGSQL.${this.port}`),
    ])
      rmSync(lock, { force: true });
  }

  /** Clients' packets go unanswered: every process of the cluster stops until heal(). */
  partition(): void {
    for (const pid of this.pids()) signal(pid, "SIGSTOP");
  }

  heal(): void {
    for (const pid of this.pids()) signal(pid, "SIGCONT");
  }

  async restart(): Promise<void> {
    await this.kill();
    await this.startServer();
  }

  /** Stops the server (immediately: nothing to keep) and removes its directory. */
  async remove(): Promise<void> {
    this.heal();
    await this.exec("pg_ctl", ["stop", "-m", "immediate", "-w", "-t", "30", "-D", this.dataDir], 45_000).catch(() =>
      this.kill().catch(() => {}),
    );
    rmSync(this.root, { recursive: true, force: true });
  }

  private async exec(tool: string, args: string[], timeout: number): Promise<void> {
    const ids = this.user ?? {};
    // pg_ctl start leaves the postmaster running with our stdio: give it none, or the call never ends.
    await new Promise<void>((resolve, reject) => {
      const child = spawn(join(this.bin, tool), args, { ...ids, cwd: this.root, stdio: ["ignore", "ignore", "pipe"] });
      let err = "";
      child.stderr.on("data", (d: Buffer) => (err += d));
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`${tool} did not finish within ${timeout} ms: ${err}`));
      }, timeout);
      child.once("error", reject);
      child.once("exit", (code) => {
        clearTimeout(timer);
        if (code === 0) resolve();
        else reject(new Error(`${tool} ${args[0]} exited with ${code}: ${err}`));
      });
    });
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** Running or stopped; a zombie (exited, not yet reaped by whoever adopted it) counts as gone. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}
