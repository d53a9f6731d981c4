/**
 * Data services, graphql and gateway. A managed or external service fills the chart's
 * external* group and switches its in-cluster component off; in-cluster ones get the
 * generated credentials.
 */
import * as pulumi from "@pulumi/pulumi";
import { common } from "./components.js";
import { RESOURCES } from "./defaults.js";
import type { Values, ValuesInput } from "./types.js";

type Spec = ValuesInput["spec"];

/** The in-cluster data services, each on only when the stack runs it in the cluster, with the generated credentials. */
function inClusterValues(s: Spec, secrets: ValuesInput["secrets"]): Values {
  const on = (svc: keyof Spec["data"]) => s.data[svc] === "inCluster";
  const auth = s.sqldb.global.sqldb.auth;
  const v = s.vectordb.postgresql;
  return {
    sqldb: {
      ...common({ ...s.sqldb, enabled: on("sqldb") }, RESOURCES.sqldb),
      global: {
        sqldb: {
          auth: {
            postgresPassword: secrets.sqldbPostgresPassword,
            username: auth.username,
            password: secrets.sqldbPassword,
            database: auth.database,
          },
        },
      },
      persistence: s.sqldb.persistence,
    },
    cache: {
      ...common({ ...s.cache, enabled: on("cache") }, RESOURCES.cache),
      architecture: s.cache.architecture,
      persistence: s.cache.persistence,
      auth: {
        enabled: s.cache.auth.enabled,
        sentinel: s.cache.auth.sentinel,
        password: s.cache.auth.enabled ? secrets.cachePassword : "",
      },
      master: s.cache.master,
    },
    docdb: {
      ...common({ ...s.docdb, enabled: on("docdb") }, RESOURCES.docdb),
      architecture: s.docdb.architecture,
      global: s.docdb.global,
      persistence: s.docdb.persistence,
      useStatefulSet: s.docdb.useStatefulSet,
      auth: {
        enabled: s.docdb.auth.enabled,
        databases: s.docdb.auth.databases,
        usernames: s.docdb.auth.usernames,
        passwords: secrets.docdbPasswords,
      },
    },
    mq: {
      ...common({ ...s.mq, enabled: on("mq") }, RESOURCES.mq),
      auth: {
        tls: s.mq.auth.tls,
        username: s.mq.auth.username,
        password: secrets.mqPassword,
        erlangCookie: secrets.mqErlangCookie,
      },
      persistence: s.mq.persistence,
      extraConfiguration: s.mq.extraConfiguration,
    },
    vectordb: {
      ...common({ ...s.vectordb, enabled: on("vectordb") }, RESOURCES.vectordb),
      postgresql: { username: v.username, password: secrets.vectordbPassword, database: v.database, port: v.port },
      persistence: s.vectordb.persistence,
      image: s.vectordb.image,
    },
  };
}

/** The graphql engine and the gateway: always in the cluster, as the stack sets them. */
function graphqlAndGatewayValues(s: Spec): Values {
  return {
    graphql: { ...common(s.graphql, RESOURCES.graphql), env: s.graphql.env },
    gateway: {
      ...common(s.gateway, RESOURCES.gateway),
      env: s.gateway.env,
      ingressController: s.gateway.ingressController,
      postgresql: s.gateway.postgresql,
      effectiveSemver: s.gateway.effectiveSemver,
      pullPolicy: s.gateway.pullPolicy,
      proxy: s.gateway.proxy,
    },
  };
}

/**
 * The chart's external* groups: a managed service's endpoint (cache and broker over TLS), or the
 * stack's external* as given, on when the stack names that service external.
 */
function externalValues(s: Spec, managed: ValuesInput["managed"]): Values {
  const { sqldb: sql, vectordb: vec, cache, docdb, mq } = managed;
  return {
    externalSqldb: sql
      ? {
          enabled: true,
          host: sql.host,
          port: pulumi.output(sql.port).apply(String),
          username: sql.username,
          password: sql.password,
          dbName: sql.database,
          maxOpenConns: s.externalSqldb.maxOpenConns,
          maxIdleConns: s.externalSqldb.maxIdleConns,
        }
      : { ...s.externalSqldb, enabled: s.data.sqldb === "external" },
    externalCache: cache
      ? {
          enabled: true,
          host: cache.host,
          port: cache.port,
          username: cache.username,
          password: cache.password,
          useTls: true,
        }
      : { ...s.externalCache, enabled: s.data.cache === "external" },
    externalDocdb: docdb
      ? { enabled: true, mongodb_uri: docdb.uri }
      : { ...s.externalDocdb, enabled: s.data.docdb === "external" },
    externalVectordb: vec
      ? {
          enabled: true,
          host: vec.host,
          port: pulumi.output(vec.port).apply(String),
          username: vec.username,
          password: vec.password,
          database: vec.database,
          sslMode: "disable",
        }
      : { ...s.externalVectordb, enabled: s.data.vectordb === "external" },
    externalMq: mq
      ? {
          enabled: true,
          host: mq.host,
          port: pulumi.output(mq.port).apply(String),
          username: mq.username,
          password: mq.password,
          useTls: true,
        }
      : { ...s.externalMq, enabled: s.data.mq === "external" },
  };
}

export function dataValues({ spec: s, secrets, managed }: ValuesInput): Values {
  return { ...inClusterValues(s, secrets), ...graphqlAndGatewayValues(s), ...externalValues(s, managed) };
}
