import { X509Certificate } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awsRdsCaBundle, RDS_CA_FILE, verifiedTlsQuery } from "../../infra/api/ca-bundle.js";
import { PgCluster } from "../helpers/pg-cluster.js";

/**
 * What a real RDS connection does, offline: a PostgreSQL server with a certificate from a CA that
 * Node does not know (as RDS's is). The URL the program renders must verify it against the bundle
 * it mounts — and the old `sslmode=require` must fail, as it did at start on AWS.
 */
describe("TLS from the API service to a managed PostgreSQL", () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await PgCluster.start({ tls: true });
  }, 120_000);
  afterAll(() => cluster?.remove());

  const connect = async (query: string) => {
    const client = new pg.Client({
      connectionString: `postgresql://postgres@127.0.0.1:${cluster.port}/postgres${query}`,
      connectionTimeoutMillis: 10_000,
    });
    client.on("error", () => {});
    try {
      await client.connect();
      return (await client.query<{ ssl: boolean }>("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")).rows[0]
        .ssl
        ? "tls"
        : "plain";
    } catch (err) {
      return `refused: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
    } finally {
      await client.end().catch(() => {});
    }
  };

  it("the rendered AWS query, with the mounted CA file, connects over verified TLS", async () => {
    const query = verifiedTlsQuery("aws").replace(RDS_CA_FILE, cluster.caFile!);
    expect(query).toMatch(/^\?sslmode=verify-full&sslrootcert=/);
    expect(await connect(query)).toBe("tls");
  });

  it("without the CA (the old sslmode=require, or Azure's query on AWS) the server is refused", async () => {
    expect(await connect("?sslmode=require")).toMatch(
      /^refused: (SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)/,
    );
    expect(await connect(verifiedTlsQuery("azure"))).toMatch(/^refused: /);
  });

  it("the bundle the stack mounts holds AWS's RDS roots, for the stacks' region among them", () => {
    const certs = awsRdsCaBundle()
      .split(/(?<=-----END CERTIFICATE-----)\n/)
      .filter((p) => p.includes("BEGIN CERTIFICATE"))
      .map((pem) => new X509Certificate(pem));
    const names = certs.map((c) => c.subject);
    expect(names.some((n) => n.includes("Amazon RDS ap-northeast-1 Root CA RSA2048 G1"))).toBe(true);
    expect(certs.every((c) => c.ca)).toBe(true);
  });
});
