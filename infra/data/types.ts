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

/** Makes one managed PostgreSQL server of a cloud: (role, user, password, database) → endpoint. */
export type PostgresFactory = (role: "sqldb" | "vectordb", username: string, password: pulumi.Output<string>, database: string) => PostgresEndpoint;

/** The sqldb and vectordb endpoints the stack wants managed, from a cloud's PostgreSQL factory. */
export function managedPostgres(spec: StackSpec, secrets: Secrets, postgres: PostgresFactory): Pick<ManagedEndpoints, "sqldb" | "vectordb"> {
  const endpoints: Pick<ManagedEndpoints, "sqldb" | "vectordb"> = {};
  if (spec.data.sqldb === "managed") {
    const auth = spec.sqldb.global.sqldb.auth;
    endpoints.sqldb = postgres("sqldb", auth.username, secrets.sqldbPassword, auth.database);
  }
  if (spec.data.vectordb === "managed") {
    const v = spec.vectordb.postgresql;
    endpoints.vectordb = postgres("vectordb", v.username, secrets.vectordbPassword, v.database);
  }
  return endpoints;
}
