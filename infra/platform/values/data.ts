/**
 * Data services, graphql and gateway. A managed or external service fills the chart's
 * external* group and switches its in-cluster component off; in-cluster ones get the
 * generated credentials.
 */
import * as pulumi from "@pulumi/pulumi";
import { common } from "./components.js";
import { RESOURCES } from "./defaults.js";
import type { Values, ValuesInput } from "./types.js";

export function dataValues({ spec: s, secrets, managed }: ValuesInput): Values {
  const mode = s.data;
  const on = (svc: keyof typeof mode) => mode[svc] === "inCluster";
  const auth = s.sqldb.global.sqldb.auth;
  const v = s.vectordb.postgresql;

  const sqlEndpoint = managed.sqldb;
  const externalSqldb = sqlEndpoint
    ? {
        enabled: true,
        host: sqlEndpoint.host,
        port: pulumi.output(sqlEndpoint.port).apply(String),
        username: sqlEndpoint.username,
        password: sqlEndpoint.password,
        dbName: sqlEndpoint.database,
        maxOpenConns: s.externalSqldb.maxOpenConns,
        maxIdleConns: s.externalSqldb.maxIdleConns,
      }
    : { ...s.externalSqldb, enabled: mode.sqldb === "external" };
  const vecEndpoint = managed.vectordb;
  const externalVectordb = vecEndpoint
    ? {
        enabled: true,
        host: vecEndpoint.host,
        port: pulumi.output(vecEndpoint.port).apply(String),
        username: vecEndpoint.username,
        password: vecEndpoint.password,
        database: vecEndpoint.database,
        sslMode: "disable",
      }
    : { ...s.externalVectordb, enabled: mode.vectordb === "external" };
  const externalCache = managed.cache
    ? {
        enabled: true,
        host: managed.cache.host,
        port: managed.cache.port,
        username: managed.cache.username,
        password: managed.cache.password,
        useTls: true,
      }
    : { ...s.externalCache, enabled: mode.cache === "external" };
  const externalDocdb = managed.docdb
    ? { enabled: true, mongodb_uri: managed.docdb.uri }
    : { ...s.externalDocdb, enabled: mode.docdb === "external" };
  const externalMq = managed.mq
    ? {
        enabled: true,
        host: managed.mq.host,
        port: pulumi.output(managed.mq.port).apply(String),
        username: managed.mq.username,
        password: managed.mq.password,
        useTls: true,
      }
    : { ...s.externalMq, enabled: mode.mq === "external" };

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
    externalSqldb,
    externalCache,
    externalDocdb,
    externalVectordb,
    externalMq,
  };
}
