import type * as pulumi from "@pulumi/pulumi";
import type { StackSpec } from "../../stack/schema.js";
import type { ManagedEndpoints } from "../../data/types.js";

type S = pulumi.Input<string>;

/** The platform's internal secrets (the Secrets component, or plain strings in tests). */
export interface PlatformSecrets {
  jwtSecret: S;
  publicLlmInternalSecret: S;
  graphqlAdminSecret: S;
  boostApiKeyMain: S;
  boostLlmproxyKey: S;
  htmlConversionBearerToken: S;
  sqldbPostgresPassword: S;
  sqldbPassword: S;
  vectordbPassword: S;
  docdbPasswords: S[];
  mqPassword: S;
  mqErlangCookie: S;
  cachePassword: S;
  objstoreRootPassword: S;
  dashboardsAdminPassword: S;
  smtpPassword: S;
  ultronPrivateKey: S;
}

/** Everything the values tree is built from. */
export interface ValuesInput {
  /** The validated stack. */
  spec: StackSpec;
  secrets: PlatformSecrets;
  /** The storage variant's chart settings. */
  storage: {
    provider: StackSpec["storage"]["provider"];
    chartSecret: pulumi.Input<Record<string, string>>;
    componentValues: Record<string, unknown>;
  };
  /** Endpoints of managed data services (empty when none). */
  managed: ManagedEndpoints;
}

/** A values subtree; leaves may be Outputs. */
export type Values = Record<string, unknown>;
