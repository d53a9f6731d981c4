/**
 * The platform's metrics component scrapes every API pod's /metrics: a job for
 * `monitoring.metrics.additionalScrapeConfigs`, the reference's way to add targets. Pods, not
 * the Service: each replica counts its own requests, and a Service would answer from one at a time.
 */
import { API_LABELS } from "../constants.js";

export const API_SCRAPE_JOB = "agentport-api";

/** Prometheus' name for a pod label in service discovery (`app.kubernetes.io/name` → `…_app_kubernetes_io_name`). */
const podLabel = (name: string) => `__meta_kubernetes_pod_label_${name.replace(/[^A-Za-z0-9_]/g, "_")}`;

export function apiScrapeConfig(namespace: string): Record<string, unknown> {
  return {
    job_name: API_SCRAPE_JOB,
    metrics_path: "/metrics",
    kubernetes_sd_configs: [{ role: "pod", namespaces: { names: [namespace] } }],
    relabel_configs: [
      {
        source_labels: [podLabel("app.kubernetes.io/name")],
        regex: API_LABELS["app.kubernetes.io/name"],
        action: "keep",
      },
      // The service's one port; a pod lists each of its container ports as a target.
      { source_labels: ["__meta_kubernetes_pod_container_port_name"], regex: "http", action: "keep" },
      { source_labels: ["__meta_kubernetes_namespace"], target_label: "namespace" },
      { source_labels: ["__meta_kubernetes_pod_name"], target_label: "pod" },
    ],
  };
}
