/** Registry, images, JWT, credentials, LLM providers and audit logs. */
import { LLM_JSON_LISTS, LLM_PROVIDER_KEYS } from "../../stack/schema-platform.js";
import { imageTagsFor } from "./defaults.js";
import type { Values, ValuesInput } from "./types.js";

/** Every provider key of the reference, set or empty (an empty JSON list for the list keys). */
function providerKeys(keys: ValuesInput["spec"]["llm"]["secretKeys"]): Values {
  return Object.fromEntries(
    Object.entries(LLM_PROVIDER_KEYS).map(([group, names]) => {
      const given = keys[group as keyof typeof LLM_PROVIDER_KEYS] as Record<string, string | undefined>;
      return [
        group,
        Object.fromEntries(
          names.map((n) => [n, given[n] ?? ((LLM_JSON_LISTS as readonly string[]).includes(n) ? "[]" : "")]),
        ),
      ];
    }),
  );
}

export function credentialValues({ spec: s, secrets }: ValuesInput): Values {
  const r = s.registryCredentials;
  const c = s.credentials;
  const {
    SERVICE_BOOST_API_KEY_MAIN: _main,
    SERVICE_BOOST_AUTO_API_KEY: _auto,
    SERVICE_BOOST_LLMPROXY_KEY: _proxy,
    ...boostRest
  } = c.boost;
  return {
    registryCredentials: r.enabled
      ? { server: r.server, username: r.username, password: r.password, email: r.email }
      : {},
    image: {
      ...(s.image.imagePullSecrets ? { imagePullSecrets: s.image.imagePullSecrets } : {}),
      pullPolicy: s.image.pullPolicy,
      ...Object.fromEntries(
        Object.entries(imageTagsFor(s.platform.version)).map(([component, tag]) => [component, { tag }]),
      ),
    },
    jwt: { secret: secrets.jwtSecret, ...(s.jwt.key ? { key: s.jwt.key } : {}), algorithm: s.jwt.algorithm },
    credentials: {
      ...(c.githost_a ? { githost_a: c.githost_a } : {}),
      ...(c.githost_b ? { githost_b: c.githost_b } : {}),
      ...(c.design ? { design: c.design } : {}),
      ...(c.git_webhook_secret ? { git_webhook_secret: c.git_webhook_secret } : {}),
      translator: c.translator,
      errortracker: c.errortracker,
      graphql: { GRAPHQL_ADMIN_SECRET: secrets.graphqlAdminSecret },
      boost: {
        ...boostRest,
        SERVICE_BOOST_API_KEY_MAIN: secrets.boostApiKeyMain,
        // Equal to the graphql admin secret by construction (one Output).
        SERVICE_BOOST_AUTO_API_KEY: secrets.graphqlAdminSecret,
        SERVICE_BOOST_LLMPROXY_KEY: secrets.boostLlmproxyKey,
        SERVICE_BOOST_ERRORTRACKER_ACCESS_TOKEN: c.boost.SERVICE_BOOST_ERRORTRACKER_ACCESS_TOKEN ?? "",
      },
      localllm: { HUB_TOKEN: c.localllm.HUB_TOKEN ?? "" },
      html_conversion: { BEARER_TOKEN: secrets.htmlConversionBearerToken },
    },
    llm: {
      AI_MODE: s.llm.AI_MODE,
      secretKeys: providerKeys(s.llm.secretKeys),
      ...(s.llm.deployments ? { deployments: s.llm.deployments } : {}),
    },
    auditLogs: s.auditLogs,
  };
}
