import type * as pulumi from "@pulumi/pulumi";

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
}
