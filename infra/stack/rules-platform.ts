/** Required-when rules of the chart's own parameters, and the equalities of the reference. */
import { checkable, requireAll, rule, type Rule } from "./rule.js";
import type { GroupName, StackSpec } from "./schema.js";
import { AUDIT_OUTPUT_KEYS, BOOST_INSTANCE_KEY, BOOST_INSTANCE_MODELS } from "./schema-platform.js";

/** `behavior=clouda,url=<http(s) URL>,headers={…},query_params={…}`, in that order. */
const INSTANCE_CONFIG =
  /^behavior=clouda,\s*url=(https?:\/\/[^\s,]+),\s*headers=\{[^{}]*\},\s*query_params=\{[^{}]*\}$/;
const isInstanceConfig = (v: string) => {
  const m = INSTANCE_CONFIG.exec(v.trim());
  return !!m && URL.canParse(m[1]);
};

const JSON_LISTS = {
  direct: ["API_KEYS"],
  clouda: ["KEYS", "INSTANCE_NAMES", "GLOBAL_KEYS", "GLOBAL_INSTANCE_NAMES"],
} as const;

function isJsonStringArray(v: string): boolean {
  try {
    const parsed: unknown = JSON.parse(v);
    return Array.isArray(parsed) && parsed.every((x) => typeof x === "string");
  } catch {
    return false;
  }
}

/** Every component's values key (reference: What the service does), for the common fields it has. */
const COMPONENTS = [
  "frontend",
  "frontend_core",
  "swef",
  "automation",
  "ultron",
  "boost",
  "llmproxy",
  "localllm",
  "browser",
  "document_converter",
  "html_conversion",
  "html_conversion_worker",
  "sqldb",
  "cache",
  "docdb",
  "mq",
  "vectordb",
  "graphql",
  "gateway",
  "objstore",
  "mail",
  "smtp",
] as const satisfies readonly GroupName[];

/** The component and its automation sub-services, each with its values path. */
function componentNodes(s: StackSpec): Array<[string, Record<string, unknown>]> {
  const services = Object.entries(s.automation.services).map(
    ([k, v]) => [`automation.services.${k}`, v] as [string, Record<string, unknown>],
  );
  return [...COMPONENTS.map((c) => [c, s[c]] as [string, Record<string, unknown>]), ...services];
}

/** The plugins the reference's gateway enables (Authentication, 7): JWT and certificate automation. */
const GATEWAY_PLUGINS = ["jwt", "acme"];

export const platformRules: Rule[] = [
  rule(COMPONENTS, (s, report) => {
    for (const [path, node] of componentNodes(s)) {
      for (const field of ["nameOverride", "fullnameOverride"]) {
        if (node[field] !== undefined && node[field] !== "")
          report(`${path}.${field}`, "is not to be changed (the reference): leave it empty");
      }
    }
  }),
  rule(["gateway"], (s, report) => {
    const plugins = s.gateway.env.plugins.split(",").map((p) => p.trim());
    const missing = GATEWAY_PLUGINS.filter((p) => !plugins.includes(p));
    if (missing.length > 0)
      report(
        "gateway.env.plugins",
        `must keep the ${missing.join(" and ")} plugin(s): the platform's JWT authentication and certificate automation use them`,
      );
  }),
  rule(["registryCredentials"], (s, report) => {
    const r = s.registryCredentials;
    if (!r.enabled) return;
    requireAll(
      report,
      "unless registryCredentials.enabled is false (cluster-native registry auth or a pre-configured pull secret)",
      {
        "registryCredentials.server": r.server,
        "registryCredentials.username": r.username,
        "registryCredentials.password": r.password,
        "registryCredentials.email": r.email,
      },
    );
  }),
  rule(["llm", "credentials"], (s, report) => {
    const k = s.llm.secretKeys;
    if (s.llm.AI_MODE === "direct") {
      requireAll(report, "when llm.AI_MODE is direct", {
        "llm.secretKeys.direct.API_KEY": k.direct.API_KEY,
        "llm.secretKeys.direct.VISION_KEY": k.direct.VISION_KEY,
        "llm.secretKeys.direct.EMBEDDING_KEY": k.direct.EMBEDDING_KEY,
        "llm.secretKeys.direct.MAIN_MODEL_NAME": k.direct.MAIN_MODEL_NAME,
      });
    } else {
      requireAll(report, "when llm.AI_MODE is clouda", {
        "llm.secretKeys.clouda.KEY": k.clouda.KEY,
        "llm.secretKeys.clouda.INSTANCE_NAME": k.clouda.INSTANCE_NAME,
      });
      const instances = Object.keys(s.credentials.boost).filter((key) => BOOST_INSTANCE_KEY.test(key));
      if (instances.length === 0) {
        report(
          "credentials.boost.SERVICE_BOOST_API_CONFIG_CLOUDA_INSTANCE_1_<MODEL>",
          "at least one instance is required when llm.AI_MODE is clouda",
        );
      }
    }
    for (const [group, keys] of Object.entries(JSON_LISTS)) {
      for (const key of keys) {
        const v = (k[group as keyof typeof JSON_LISTS] as Record<string, string | undefined>)[key];
        if (checkable(v) && !isJsonStringArray(v))
          report(`llm.secretKeys.${group}.${key}`, 'must be a JSON array of strings, e.g. ["a","b"]');
      }
    }
    // Further providers beside the primary one: a group in use needs every key the reference marks Required.
    const further = {
      managed: [
        "CONVERSE_ACCESS_KEY_ID",
        "CONVERSE_SECRET_ACCESS_KEY",
        "CONVERSE_GLOBAL_ACCESS_KEY_ID",
        "CONVERSE_GLOBAL_SECRET_ACCESS_KEY",
      ],
    } as const;
    for (const [group, keys] of Object.entries(further)) {
      const values = k[group as keyof typeof further] as Record<string, string | undefined>;
      if (!keys.some((key) => values[key])) continue;
      requireAll(
        report,
        `when llm.secretKeys.${group} is used (any of its keys set)`,
        Object.fromEntries(keys.map((key) => [`llm.secretKeys.${group}.${key}`, values[key]])),
      );
    }
  }),
  rule(["credentials"], (s, report) => {
    const c = s.credentials;
    for (const [key, value] of Object.entries(c.boost)) {
      if (key.startsWith("SERVICE_BOOST_API_CONFIG_")) {
        const model = BOOST_INSTANCE_KEY.exec(key)?.[2];
        if (!model)
          report(`credentials.boost.${key}`, "must be named SERVICE_BOOST_API_CONFIG_CLOUDA_INSTANCE_<n>_<MODEL>");
        else if (!(BOOST_INSTANCE_MODELS as readonly string[]).includes(model))
          report(`credentials.boost.${key}`, `model suffix must be one of: ${BOOST_INSTANCE_MODELS.join(", ")}`);
        else if (typeof value !== "string" || (checkable(value) && !isInstanceConfig(value))) {
          report(
            `credentials.boost.${key}`,
            "must be behavior=clouda,url=<deployment_url>,headers={...},query_params={...}",
          );
        }
      } else if (
        ![
          "SERVICE_BOOST_API_KEY_MAIN",
          "SERVICE_BOOST_AUTO_API_KEY",
          "SERVICE_BOOST_LLMPROXY_KEY",
          "SERVICE_BOOST_ERRORTRACKER_ACCESS_TOKEN",
        ].includes(key)
      ) {
        report(`credentials.boost.${key}`, "unknown parameter");
      }
    }
    // Error tracking is off by default; once any of its tokens is set, the Required ones are demanded.
    const tracker = [
      c.errortracker.post_server_item_access_token,
      c.errortracker.post_client_item_access_token,
      c.boost.SERVICE_BOOST_ERRORTRACKER_ACCESS_TOKEN,
    ];
    if (tracker.some(Boolean)) {
      requireAll(report, "when error tracking is on (any errortracker token set)", {
        "credentials.boost.SERVICE_BOOST_ERRORTRACKER_ACCESS_TOKEN": c.boost.SERVICE_BOOST_ERRORTRACKER_ACCESS_TOKEN,
        "credentials.errortracker.post_server_item_access_token": c.errortracker.post_server_item_access_token,
      });
    }
    // A git host integration is on when its group is given: all three values are then needed.
    for (const host of ["githost_a", "githost_b"] as const) {
      const g = c[host];
      if (g)
        requireAll(report, `when credentials.${host} is given (that integration on)`, {
          [`credentials.${host}.app_name`]: g.app_name,
          [`credentials.${host}.client_id`]: g.client_id,
          [`credentials.${host}.client_secret`]: g.client_secret,
        });
    }
    const t = c.translator;
    if (t.translator_service === "clouda") {
      requireAll(report, "when credentials.translator.translator_service is clouda", {
        "credentials.translator.clouda.TRANSLATOR_TEXT_KEY": t.clouda.TRANSLATOR_TEXT_KEY,
        "credentials.translator.clouda.TRANSLATOR_TEXT_ENDPOINT": t.clouda.TRANSLATOR_TEXT_ENDPOINT,
        "credentials.translator.clouda.TRANSLATOR_TEXT_LOCATION": t.clouda.TRANSLATOR_TEXT_LOCATION,
      });
    } else {
      requireAll(report, "when credentials.translator.translator_service is cloudb_translate", {
        "credentials.translator.cloudb.ACCESS_KEY_ID": t.cloudb.ACCESS_KEY_ID,
        "credentials.translator.cloudb.SECRET_ACCESS_KEY": t.cloudb.SECRET_ACCESS_KEY,
      });
    }
    const auto = c.boost.SERVICE_BOOST_AUTO_API_KEY;
    const admin = c.graphql.GRAPHQL_ADMIN_SECRET;
    // A `secure:` value read offline is a stand-in per path: equal secrets cannot be told apart there.
    if (checkable(auto) && checkable(admin) && auto !== admin) {
      report(
        "credentials.boost.SERVICE_BOOST_AUTO_API_KEY",
        "must equal credentials.graphql.GRAPHQL_ADMIN_SECRET (set only one of them)",
      );
    }
  }),
  rule(["automation", "ultron", "frontend"], (s, report) => {
    const a = s.automation.env.PUBLIC_LLM_INTERNAL_SECRET;
    const u = s.ultron.secret.PUBLIC_LLM_INTERNAL_SECRET;
    if (checkable(a) && checkable(u) && a !== u)
      report(
        "ultron.secret.PUBLIC_LLM_INTERNAL_SECRET",
        "must equal automation.env.PUBLIC_LLM_INTERNAL_SECRET (set only one of them)",
      );
    const signUp = s.frontend.env.REACT_APP_SECURED_SIGN_UP;
    if (signUp !== undefined && signUp !== s.automation.env.SECURED_SIGN_UP) {
      report(
        "frontend.env.REACT_APP_SECURED_SIGN_UP",
        "must equal automation.env.SECURED_SIGN_UP (leave it unset to follow it)",
      );
    }
    const key = s.ultron.secret.CLI_ZIPPER_PRIVATE_KEY;
    if (checkable(key) && !/-----BEGIN (RSA )?PRIVATE KEY-----/.test(key))
      report("ultron.secret.CLI_ZIPPER_PRIVATE_KEY", "must be a PEM RSA private key");
  }),
  rule(["auditLogs"], (s, report) => {
    if (!s.auditLogs.enabled) return;
    for (const [name, keys] of Object.entries(AUDIT_OUTPUT_KEYS)) {
      const out = s.auditLogs.outputs[name as keyof typeof AUDIT_OUTPUT_KEYS];
      if (!out.enabled) continue;
      requireAll(
        report,
        `when auditLogs.outputs.${name}.enabled`,
        Object.fromEntries(keys.map((k) => [`auditLogs.outputs.${name}.env.${k}`, out.env[k]])),
      );
    }
  }),
  rule(["mailer", "smtp", "mail"], (s, report) => {
    if (s.smtp.enabled) {
      requireAll(report, "when smtp.enabled", { "smtp.config.hostname": s.smtp.config.hostname });
      if (s.smtp.auth.enabled && s.smtp.auth.users.length === 0)
        report("smtp.auth.users", "needs one user when smtp.auth.enabled");
    }
    // The in-cluster SMTP server is the mailer's address; otherwise (and for the relay) the mailer settings are used.
    if (!s.smtp.enabled || s.mail.enabled) {
      const m = s.mailer.smtp_settings;
      const why = s.mail.enabled ? "when mail.enabled (the relay forwards with these settings)" : "unless smtp.enabled";
      requireAll(report, why, {
        "mailer.smtp_settings.address": m.address,
        "mailer.smtp_settings.user_name": m.user_name,
        "mailer.smtp_settings.password": m.password,
      });
    }
  }),
  rule(["ingress", "storage"], (s, report) => {
    const o = s.ingress.objstore;
    if (o.enabled) requireAll(report, "when ingress.objstore.enabled", { "ingress.objstore.domainName": o.domainName });
    if (o.console.enabled)
      requireAll(report, "when ingress.objstore.console.enabled", {
        "ingress.objstore.console.domainName": o.console.domainName,
      });
    if ((o.enabled || o.console.enabled) && s.storage.provider !== "Minio")
      report("ingress.objstore.enabled", "needs storage.provider Minio");
  }),
  rule(["monitoring"], (s, report) => {
    const st = s.monitoring.logs.storage;
    if (s.monitoring.enabled && s.monitoring.logagent.enabled && !s.monitoring.logs.enabled) {
      report(
        "monitoring.logs.enabled",
        "must be true while monitoring.logagent.enabled: the agent ships to it (or turn the agent off and point an existing one at a logs endpoint)",
      );
    }
    if (!s.monitoring.enabled || !s.monitoring.logs.enabled) return;
    if (st.type === "s3")
      requireAll(report, "when monitoring.logs.storage.type is s3", {
        "monitoring.logs.storage.s3.bucketName": st.s3.bucketName,
        "monitoring.logs.storage.s3.region": st.s3.region,
      });
    if (st.type === "azure") {
      requireAll(report, "when monitoring.logs.storage.type is azure", {
        "monitoring.logs.storage.clouda.accountName": st.clouda.accountName,
        "monitoring.logs.storage.clouda.containerName": st.clouda.containerName,
        ...(st.clouda.useManagedIdentity ? {} : { "monitoring.logs.storage.clouda.accountKey": st.clouda.accountKey }),
      });
    }
  }),
];
