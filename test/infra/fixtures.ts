/** Stacks as plain objects, for the pure tests (validator, values builder, settings). */
import { projectConfig, readStackFile } from "../../infra/plan/stack-file.js";
import type { StackSpec } from "../../infra/stack/schema.js";
import { requireValidStack } from "../../infra/stack/validate.js";
import type { PlatformSecrets } from "../../infra/platform/values/types.js";

export const STACKS = ["local", "staging-aws", "prod-aws", "prod-azure", "onprem"] as const;

/** The stack's `agentport:` config, a fresh copy each call. */
export const rawStack = (stack: string): Record<string, any> => structuredClone(projectConfig(readStackFile(stack)));

export const specOf = (stack: string, edit?: (raw: Record<string, any>) => void): StackSpec => {
  const raw = rawStack(stack);
  edit?.(raw);
  return requireValidStack(raw, stack);
};

/** Recognisable plain secrets: each value says where it came from. */
export const SECRETS: PlatformSecrets = {
  jwtSecret: "S-jwt",
  publicLlmInternalSecret: "S-llm-internal",
  graphqlAdminSecret: "S-graphql-admin",
  boostApiKeyMain: "S-boost-main",
  boostLlmproxyKey: "S-boost-llmproxy",
  htmlConversionBearerToken: "S-html",
  sqldbPostgresPassword: "S-sqldb-super",
  sqldbPassword: "S-sqldb",
  vectordbPassword: "S-vectordb",
  docdbPasswords: ["S-docdb"],
  mqPassword: "S-mq",
  mqErlangCookie: "S-erlang",
  cachePassword: "S-cache",
  objstoreRootPassword: "S-objstore-root",
  dashboardsAdminPassword: "S-dashboards",
  smtpPassword: "S-smtp",
  ultronPrivateKey: "S-ultron-key",
};
