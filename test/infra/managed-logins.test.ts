import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { managedLogins } from "../../infra/data/types.js";
import type { Secrets } from "../../infra/secrets.js";
import { specOf } from "./fixtures.js";

const secret = (v: string) => pulumi.output(v);
const secrets = {
  sqldbPassword: secret("S-sqldb"),
  vectordbPassword: secret("S-vector"),
  cachePassword: secret("S-cache"),
  docdbPasswords: [secret("S-docdb")],
  mqPassword: secret("S-mq"),
} as unknown as Secrets;

describe("managed services and their logins, from the stack", () => {
  it("names every managed service with the login and database the platform uses", () => {
    const spec = specOf("prod-aws");
    const logins = managedLogins(spec, secrets);
    expect(Object.keys(logins).sort()).toEqual(["cache", "docdb", "mq", "sqldb", "vectordb"]);
    expect(logins.sqldb).toMatchObject({
      username: spec.sqldb.global.sqldb.auth.username,
      database: spec.sqldb.global.sqldb.auth.database,
      password: secrets.sqldbPassword,
    });
    expect(logins.vectordb).toMatchObject({
      username: spec.vectordb.postgresql.username,
      database: spec.vectordb.postgresql.database,
    });
    expect(logins.docdb).toMatchObject({
      username: spec.docdb.auth.usernames[0],
      database: spec.docdb.auth.databases[0],
      password: secrets.docdbPasswords[0],
    });
    expect(logins.mq).toMatchObject({ username: spec.mq.auth.username, password: secrets.mqPassword });
  });

  it("leaves out what runs in the cluster or elsewhere", () => {
    expect(managedLogins(specOf("local"), secrets)).toEqual({});
    const spec = specOf("prod-aws", (raw) => {
      raw.data = { ...raw.data, mq: "inCluster", docdb: "inCluster" };
    });
    expect(Object.keys(managedLogins(spec, secrets)).sort()).toEqual(["cache", "sqldb", "vectordb"]);
  });
});
