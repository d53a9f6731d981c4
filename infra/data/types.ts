import type * as pulumi from "@pulumi/pulumi";
import type { StackSpec } from "../config.js";
import type { Secrets } from "../secrets.js";

type S = pulumi.Input<string>;

/** A PostgreSQL database reachable by host. */
export interface PostgresEndpoint {
  host: S;
  port: pulumi.Input<number>;
  username: S;
  password: S;
  database: S;
}

/** What a managed variant (aws | azure) created, per service; same shape for both clouds. */
export interface ManagedEndpoints {
  sqldb?: PostgresEndpoint;
  vectordb?: PostgresEndpoint;
  cache?: { host: S; port: pulumi.Input<number>; username: S; password: S };
  /** Full connection URI (credentials inside, so secret). */
  docdb?: { uri: S };
  mq?: { host: S; port: pulumi.Input<number>; username: S; password: S };
}

/** A managed data services component: aws.ts or azure.ts. */
export interface ManagedDataServices {
  readonly endpoints: ManagedEndpoints;
  /**
   * What the platform release must wait for beyond the endpoints it reads: instances behind a
   * cluster endpoint, databases and settings on a server, private endpoints and their DNS.
   */
  readonly ready: pulumi.Resource[];
}

/** A login a managed service is created with. */
export interface Login {
  username: string;
  password: pulumi.Output<string>;
}

/**
 * The services a stack wants managed, each with the login (and database) the platform uses:
 * all a cloud's component needs to know of the stack besides its network and sizes.
 */
export interface ManagedLogins {
  sqldb?: Login & { database: string };
  vectordb?: Login & { database: string };
  /** Redis's auth token (its user is `default`). */
  cache?: { password: pulumi.Output<string> };
  docdb?: Login & { database: string };
  mq?: Login;
}

/** Which services the stack has managed, with their logins: pure, from the stack and its secrets. */
export function managedLogins(spec: StackSpec, secrets: Secrets): ManagedLogins {
  const managed = (service: keyof StackSpec["data"]) => spec.data[service] === "managed";
  const sql = spec.sqldb.global.sqldb.auth;
  const vector = spec.vectordb.postgresql;
  return {
    ...(managed("sqldb") && {
      sqldb: { username: sql.username, password: secrets.sqldbPassword, database: sql.database },
    }),
    ...(managed("vectordb") && {
      vectordb: { username: vector.username, password: secrets.vectordbPassword, database: vector.database },
    }),
    ...(managed("cache") && { cache: { password: secrets.cachePassword } }),
    ...(managed("docdb") && {
      docdb: {
        username: spec.docdb.auth.usernames[0],
        password: secrets.docdbPasswords[0],
        database: spec.docdb.auth.databases[0],
      },
    }),
    ...(managed("mq") && { mq: { username: spec.mq.auth.username, password: secrets.mqPassword } }),
  };
}
