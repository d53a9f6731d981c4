/** The monitoring stack, with request defaults per component. */
import { apiScrapeConfig } from "../../api/scrape.js";
import { MONITORING_RESOURCES } from "./defaults.js";
import type { Values, ValuesInput } from "./types.js";

type Placed = { resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> } };

function sized<T extends Placed>(part: T, name: string): T & { resources: Values } {
  const d = MONITORING_RESOURCES[name];
  return {
    ...part,
    resources: {
      requests: { ...(d?.requests ?? {}), ...(part.resources?.requests ?? {}) },
      limits: { ...(d?.limits ?? {}), ...(part.resources?.limits ?? {}) },
    },
  };
}

export function monitoringValues({ spec: s, secrets }: ValuesInput): Values {
  const m = s.monitoring;
  return {
    monitoring: {
      enabled: m.enabled,
      useTls: m.useTls,
      // The stack's own scrape jobs first, then the API pods'.
      metrics: {
        ...sized(m.metrics, "metrics"),
        additionalScrapeConfigs: [...m.metrics.additionalScrapeConfigs, apiScrapeConfig(s.api.namespace)],
      },
      dashboards: { ...sized(m.dashboards, "dashboards"), adminPassword: secrets.dashboardsAdminPassword },
      logs: sized(m.logs, "logs"),
      logagent: sized(m.logagent, "logagent"),
      opentelemetry: sized(m.opentelemetry, "opentelemetry"),
      traces: sized(m.traces, "traces"),
      nodeExporter: sized(m.nodeExporter, "nodeExporter"),
      kubeStateMetrics: sized(m.kubeStateMetrics, "kubeStateMetrics"),
    },
  };
}
