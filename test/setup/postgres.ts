/**
 * vitest global setup: the PostgreSQL server the store tests run against. When the configured
 * one (TEST_DATABASE_URL, default the local server's `test` database) does not answer, a private
 * cluster is started for this run, so `npm test` needs nothing started by hand.
 */
import pg from "pg";
import { answers, PgCluster } from "../helpers/pg-cluster.js";

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/test";

export default async function setup(): Promise<(() => Promise<void>) | void> {
  const configured = process.env.TEST_DATABASE_URL ?? DEFAULT_URL;
  if (await answers(configured)) return;
  const cluster = await PgCluster.start();
  const admin = new pg.Client({ connectionString: cluster.url() });
  await admin.connect();
  await admin.query("CREATE DATABASE test");
  await admin.end();
  // Test workers are forked after global setup and inherit this environment.
  process.env.TEST_DATABASE_URL = cluster.url("test");
  console.log(
    `PostgreSQL at ${configured} did not answer: using a private cluster on port ${cluster.port} for this run`,
  );
  return () => cluster.remove();
}
