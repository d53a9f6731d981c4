/**
 * Every internal secret of the platform: generated with the suggested length unless the
 * stack sets it (`pulumi config set --secret --path …`). Each secret is one Output, so the
 * equalities of the reference hold by construction: one value feeds both places.
 */
import * as pulumi from "@pulumi/pulumi";
import { RandomPassword } from "@pulumi/random/randomPassword.js";
import { PrivateKey } from "@pulumi/tls/privateKey.js";
import type { StackSpec } from "./config.js";
import { SUGGESTED_SECRET_LENGTHS as LEN } from "./constants.js";

export interface SecretsArgs {
  /** The validated stack; values set there win over generated ones. */
  spec: StackSpec;
}

type S = pulumi.Output<string>;

export class Secrets extends pulumi.ComponentResource {
  /** jwt.secret (64). Also signs our API service's member tokens. */
  readonly jwtSecret: S;
  /** automation.env and ultron.secret PUBLIC_LLM_INTERNAL_SECRET (one value). */
  readonly publicLlmInternalSecret: S;
  /** credentials.graphql.GRAPHQL_ADMIN_SECRET, also credentials.boost.SERVICE_BOOST_AUTO_API_KEY. */
  readonly graphqlAdminSecret: S;
  readonly boostApiKeyMain: S;
  /** Master key of the LLM proxy; our service uses it to call the proxy. */
  readonly boostLlmproxyKey: S;
  readonly htmlConversionBearerToken: S;
  readonly sqldbPostgresPassword: S;
  readonly sqldbPassword: S;
  readonly vectordbPassword: S;
  /** One per docdb.auth.usernames entry. */
  readonly docdbPasswords: S[];
  readonly mqPassword: S;
  readonly mqErlangCookie: S;
  readonly cachePassword: S;
  readonly objstoreAccessKey: S;
  readonly objstoreSecretKey: S;
  readonly objstoreRootPassword: S;
  readonly dashboardsAdminPassword: S;
  readonly smtpPassword: S;
  /** ultron.secret.CLI_ZIPPER_PRIVATE_KEY (RSA, PEM). */
  readonly ultronPrivateKey: S;

  constructor(name: string, args: SecretsArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super("agentport:secrets:Secrets", name, {}, opts);
    const s = args.spec;
    const parent = { parent: this };
    // Letters and digits only: every consumer (URLs, AMQP, Redis AUTH) takes them unescaped. At
    // least one upper, lower and digit: Azure Database for PostgreSQL and Amazon MQ refuse a
    // password drawing on fewer classes, and a rare all-lowercase draw would fail a real `up`.
    const pick = (key: string, given: string | undefined, length: number): S =>
      given
        ? pulumi.secret(given)
        : pulumi.secret(
            new RandomPassword(
              `${name}-${key}`,
              { length, special: false, minUpper: 1, minLower: 1, minNumeric: 1 },
              parent,
            ).result,
          );

    this.jwtSecret = pick("jwt", s.jwt.secret, LEN["jwt.secret"]);
    this.publicLlmInternalSecret = pick(
      "llm-internal",
      s.automation.env.PUBLIC_LLM_INTERNAL_SECRET ?? s.ultron.secret.PUBLIC_LLM_INTERNAL_SECRET,
      32,
    );
    this.graphqlAdminSecret = pick(
      "graphql-admin",
      s.credentials.graphql.GRAPHQL_ADMIN_SECRET ?? s.credentials.boost.SERVICE_BOOST_AUTO_API_KEY,
      32,
    );
    this.boostApiKeyMain = pick(
      "boost-main",
      s.credentials.boost.SERVICE_BOOST_API_KEY_MAIN,
      LEN["credentials.boost.SERVICE_BOOST_API_KEY_MAIN"],
    );
    this.boostLlmproxyKey = pick(
      "boost-llmproxy",
      s.credentials.boost.SERVICE_BOOST_LLMPROXY_KEY,
      LEN["credentials.boost.SERVICE_BOOST_LLMPROXY_KEY"],
    );
    this.htmlConversionBearerToken = pick(
      "html-conversion",
      s.credentials.html_conversion.BEARER_TOKEN,
      LEN["credentials.html_conversion.BEARER_TOKEN"],
    );
    this.sqldbPostgresPassword = pick("sqldb-superuser", s.sqldb.global.sqldb.auth.postgresPassword, 32);
    this.sqldbPassword = pick("sqldb", s.sqldb.global.sqldb.auth.password, 32);
    this.vectordbPassword = pick("vectordb", s.vectordb.postgresql.password, 32);
    this.docdbPasswords = s.docdb.auth.usernames.map((_, i) => pick(`docdb-${i}`, s.docdb.auth.passwords?.[i], 32));
    this.mqPassword = pick("mq", s.mq.auth.password, 32);
    this.mqErlangCookie = pick("mq-erlang-cookie", s.mq.auth.erlangCookie, 48);
    this.cachePassword = pick("cache", s.cache.auth.password, 32);
    this.objstoreAccessKey = pick(
      "objstore-access-key",
      s.storage.secret.objstore.ACCESS_KEY_ID,
      LEN["storage.secret.objstore.ACCESS_KEY_ID"],
    );
    this.objstoreSecretKey = pick(
      "objstore-secret-key",
      s.storage.secret.objstore.SECRET_ACCESS_KEY,
      LEN["storage.secret.objstore.SECRET_ACCESS_KEY"],
    );
    this.objstoreRootPassword = pick("objstore-root", s.objstore.rootPassword, 40);
    this.dashboardsAdminPassword = pick("dashboards-admin", s.monitoring.dashboards.adminPassword, 32);
    this.smtpPassword = pick("smtp", s.smtp.auth.users[0]?.password, 32);
    const given = s.ultron.secret.CLI_ZIPPER_PRIVATE_KEY;
    this.ultronPrivateKey = given
      ? pulumi.secret(given)
      : pulumi.secret(
          new PrivateKey(`${name}-ultron-zipper`, { algorithm: "RSA", rsaBits: 4096 }, parent).privateKeyPem,
        );
    this.registerOutputs({});
  }
}
