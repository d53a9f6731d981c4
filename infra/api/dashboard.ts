/**
 * The API's dashboard (infra/dashboards/agentport.json) for the platform's dashboards component:
 * a ConfigMap in its namespace with the `grafana_dashboard` label, the Grafana chart's convention
 * for the sidecar that loads dashboards from ConfigMaps (the reference names no other way in).
 */
import { readFileSync } from "node:fs";
import type * as pulumi from "@pulumi/pulumi";
import { ConfigMap } from "@pulumi/kubernetes/core/v1/index.js";
import { API_LABELS } from "../constants.js";

export const DASHBOARD_FILE = new URL("../dashboards/agentport.json", import.meta.url);
/** The label the dashboards sidecar watches, and its value. */
export const DASHBOARD_LABEL = { grafana_dashboard: "1" } as const;

export function apiDashboard(name: string, namespace: string, opts: pulumi.CustomResourceOptions): ConfigMap {
  return new ConfigMap(
    name,
    {
      metadata: { name: "agentport-api-dashboard", namespace, labels: { ...API_LABELS, ...DASHBOARD_LABEL } },
      data: { "agentport.json": readFileSync(DASHBOARD_FILE, "utf8") },
    },
    opts,
  );
}
