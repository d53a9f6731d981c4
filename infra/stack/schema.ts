/**
 * The whole stack: one group per top-level config key (`agentport:<group>`). Groups named
 * like the chart's values follow the deployment reference path for path; `cloud`,
 * `platform`, `data` and `api` belong to this program.
 */
import type { z } from "zod";
import { api, cloud, data, platform } from "./schema-deploy.js";
import { auditLogs, credentials, image, jwt, llm, registryCredentials } from "./schema-platform.js";
import { company, ingress, mail, mailer, objstore, smtp, storage } from "./schema-web.js";
import * as c from "./schema-components.js";
import * as d from "./schema-data.js";
import { monitoring } from "./schema-monitoring.js";

export const GROUPS = {
  cloud,
  platform,
  data,
  api,
  registryCredentials,
  image,
  jwt,
  credentials,
  auditLogs,
  llm,
  ingress,
  storage,
  objstore,
  company,
  mailer,
  smtp,
  mail,
  frontend: c.frontend,
  frontend_core: c.frontend_core,
  swef: c.swef,
  automation: c.automation,
  ultron: c.ultron,
  document_converter: c.document_converter,
  html_conversion: c.html_conversion,
  html_conversion_worker: c.html_conversion_worker,
  localllm: c.localllm,
  llmproxy: c.llmproxy,
  boost: c.boost,
  browser: c.browser,
  sqldb: d.sqldb,
  cache: d.cache,
  docdb: d.docdb,
  mq: d.mq,
  graphql: d.graphql,
  gateway: d.gateway,
  vectordb: d.vectordb,
  externalSqldb: d.externalSqldb,
  externalCache: d.externalCache,
  externalDocdb: d.externalDocdb,
  externalVectordb: d.externalVectordb,
  externalMq: d.externalMq,
  monitoring,
} as const;

export type GroupName = keyof typeof GROUPS;
export const GROUP_NAMES = Object.keys(GROUPS) as GroupName[];

/** The validated stack, defaults applied. */
export type StackSpec = { [K in GroupName]: z.output<(typeof GROUPS)[K]> };

/** Data services that can be in-cluster, managed or external. */
export const DATA_SERVICES = ["sqldb", "cache", "docdb", "mq", "vectordb"] as const;
export type DataService = (typeof DATA_SERVICES)[number];
export type DataMode = StackSpec["data"]["sqldb"];

/** The stack group that describes each data service when it is `external`. */
export const EXTERNAL_GROUP = {
  sqldb: "externalSqldb",
  cache: "externalCache",
  docdb: "externalDocdb",
  mq: "externalMq",
  vectordb: "externalVectordb",
} as const satisfies Record<DataService, GroupName>;

/** The platform's STORAGE_DISK for each storage provider. */
export const STORAGE_DISK = { S3: "s3", AzureStorage: "azure", Minio: "minio" } as const satisfies Record<
  StackSpec["storage"]["provider"],
  string
>;
