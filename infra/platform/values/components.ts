/** Application components: common fields, resources from the defaults table, env, probes. */
import { RESOURCES, type Sizing } from "./defaults.js";
import type { Values, ValuesInput } from "./types.js";
import { STORAGE_DISK } from "../../stack/schema.js";

type Common = {
  enabled: boolean;
  replicaCount?: number;
  nameOverride: string;
  fullnameOverride: string;
  nodeSelector: Record<string, unknown>;
  tolerations: unknown[];
  affinity: Record<string, unknown>;
  serviceAccount: { create: boolean; name: string; annotations: Record<string, unknown> };
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
};

/** Common fields of one component, resources and replicas from the table unless set. */
export function common(c: Common, sizing: Sizing | undefined): Values {
  const out: Values = {
    enabled: c.enabled,
    nameOverride: c.nameOverride,
    fullnameOverride: c.fullnameOverride,
    nodeSelector: c.nodeSelector,
    tolerations: c.tolerations,
    affinity: c.affinity,
    serviceAccount: c.serviceAccount,
    resources: {
      requests: { ...(sizing?.requests ?? {}), ...(c.resources?.requests ?? {}) },
      limits: { ...(sizing?.limits ?? {}), ...(c.resources?.limits ?? {}) },
    },
  };
  const replicas = c.replicaCount ?? sizing?.replicas;
  if (replicas !== undefined) out.replicaCount = replicas;
  return out;
}

export function componentValues({ spec: s, secrets }: ValuesInput): Values {
  const a = s.automation;
  const services = a.services;
  return {
    frontend: {
      ...common(s.frontend, RESOURCES.frontend),
      env: {
        ...s.frontend.env,
        REACT_APP_BROADCASTER_WS_URL:
          s.frontend.env.REACT_APP_BROADCASTER_WS_URL ?? `wss://${s.ingress.domainName}/broadcast`,
        // One switch: the UI and the backend agree on invitation-only sign-up.
        REACT_APP_SECURED_SIGN_UP: a.env.SECURED_SIGN_UP,
      },
    },
    frontend_core: { ...common(s.frontend_core, RESOURCES.frontend_core), env: s.frontend_core.env },
    swef: { ...common(s.swef, RESOURCES.swef), env: s.swef.env },
    automation: {
      ...common(a, undefined),
      env: { ...a.env, PUBLIC_LLM_INTERNAL_SECRET: secrets.publicLlmInternalSecret },
      services: {
        web: {
          ...common(services.web, RESOURCES["automation.web"]),
          livenessProbe: { httpGet: { path: "/health", port: 3000 } },
          readinessProbe: { httpGet: { path: "/health", port: 3000 } },
          lifecycle: { preStop: { exec: { command: ["sleep", "15"] } } },
        },
        jobs: common(services.jobs, RESOURCES["automation.jobs"]),
        "jobs-priority": common(services["jobs-priority"], RESOURCES["automation.jobs-priority"]),
        rpc: common(services.rpc, RESOURCES["automation.rpc"]),
        identifier: {
          ...common(services.identifier, RESOURCES["automation.identifier"]),
          name: services.identifier.name,
        },
      },
    },
    ultron: {
      ...common(s.ultron, RESOURCES.ultron),
      terminationGracePeriodSeconds: s.ultron.terminationGracePeriodSeconds,
      lifecycle: { preStop: { httpGet: { path: "/stop-all-consumer", port: 3000 } } },
      env: { ...s.ultron.env, STORAGE_DISK: STORAGE_DISK[s.storage.provider] },
      // The same Output as automation.env: equal by construction.
      secret: {
        PUBLIC_LLM_INTERNAL_SECRET: secrets.publicLlmInternalSecret,
        CLI_ZIPPER_PRIVATE_KEY: secrets.ultronPrivateKey,
      },
    },
    document_converter: {
      ...common(s.document_converter, RESOURCES.document_converter),
      env: { ...s.document_converter.env, USE_CLOUDA: String(s.storage.provider === "AzureStorage") },
    },
    html_conversion: { ...common(s.html_conversion, RESOURCES.html_conversion), env: s.html_conversion.env },
    html_conversion_worker: {
      ...common(s.html_conversion_worker, RESOURCES.html_conversion_worker),
      env: s.html_conversion_worker.env,
    },
    localllm: { ...common(s.localllm, RESOURCES.localllm), env: s.localllm.env },
    llmproxy: {
      ...common(s.llmproxy, RESOURCES.llmproxy),
      ...(s.llmproxy.port ? { port: s.llmproxy.port } : {}),
      env: s.llmproxy.env,
    },
    boost: {
      ...common(s.boost, RESOURCES.boost),
      env: {
        ...s.boost.env,
        // The reference's `https://search.<your-domain>`; <your-domain> is ingress.domainName everywhere.
        SERVICE_BOOST_SEARCH_URL: s.boost.env.SERVICE_BOOST_SEARCH_URL ?? `https://search.${s.ingress.domainName}`,
      },
    },
    browser: { ...common(s.browser, RESOURCES.browser), env: s.browser.env },
  };
}
