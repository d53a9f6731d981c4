/** Component defaults of the deployment reference: resources, replicas, image tags. */

export interface Sizing {
  replicas?: number;
  requests?: { memory: string; cpu: string };
  limits?: { memory: string; cpu: string };
}

const r = (memory: string, cpu: string) => ({ memory, cpu });

/** Resource defaults table (reference: Components, common rules). */
export const RESOURCES: Record<string, Sizing> = {
  frontend: { replicas: 1, requests: r("128Mi", "100m"), limits: r("2048Mi", "10000m") },
  swef: { replicas: 1, requests: r("128Mi", "100m"), limits: r("2048Mi", "10000m") },
  frontend_core: { replicas: 1 },
  "automation.web": { replicas: 1, requests: r("2048Mi", "500m"), limits: r("4096Mi", "2000m") },
  "automation.jobs": { replicas: 1, requests: r("1500Mi", "200m"), limits: r("4096Mi", "2000m") },
  "automation.jobs-priority": { replicas: 1, requests: r("1500Mi", "200m"), limits: r("4096Mi", "2000m") },
  "automation.rpc": { replicas: 1, requests: r("1024Mi", "100m"), limits: r("2048Mi", "1000m") },
  "automation.identifier": { replicas: 1 },
  ultron: { replicas: 1, requests: r("1024Mi", "500m") },
  document_converter: { replicas: 1, requests: r("2048Mi", "1024m") },
  localllm: { replicas: 1, requests: r("4Gi", "2000m"), limits: r("32Gi", "8000m") },
  llmproxy: { replicas: 1, requests: r("512Mi", "250m") },
  boost: { replicas: 1, requests: r("1024Mi", "250m") },
  browser: { replicas: 1, requests: r("512Mi", "150m"), limits: r("4Gi", "4000m") },
  html_conversion: { replicas: 1, requests: r("512Mi", "256m") },
  html_conversion_worker: { replicas: 2, requests: r("512Mi", "256m") },
  graphql: { replicas: 1, requests: r("512Mi", "500m"), limits: r("1Gi", "1000m") },
  sqldb: {},
  cache: {},
  docdb: { requests: r("300Mi", "400m"), limits: r("1500Mi", "1000m") },
  mq: { requests: r("256Mi", "100m"), limits: r("1000Mi", "1000m") },
  vectordb: { requests: r("512Mi", "500m"), limits: r("1Gi", "1000m") },
  smtp: { replicas: 1, requests: r("256Mi", "100m"), limits: r("512Mi", "500m") },
  mail: { replicas: 1, requests: r("128Mi", "100m"), limits: r("512Mi", "500m") },
  gateway: { replicas: 2 },
  // No replicaCount: the objstore's pod count is objstore.replicas (storage/objstore.ts), by mode.
  objstore: { requests: r("512Mi", "250m"), limits: r("2Gi", "1000m") },
};

/** Monitoring request defaults (reference: Monitoring). */
export const MONITORING_RESOURCES: Record<string, Sizing> = {
  metrics: { replicas: 1, requests: r("512Mi", "100m"), limits: r("2Gi", "1000m") },
  dashboards: { requests: r("256Mi", "100m") },
  logs: { requests: r("256Mi", "100m") },
  logagent: { requests: r("128Mi", "100m") },
  opentelemetry: { requests: r("256Mi", "100m") },
  traces: { requests: r("1Gi", "100m") },
  nodeExporter: { requests: r("16Mi", "10m") },
  kubeStateMetrics: { requests: r("64Mi", "10m") },
};

/**
 * Image tags by chart version (reference: Versioning): users do not change them, a platform
 * upgrade does. A `platform.version` without an entry renders no tags, so the chart's own apply
 * and bumping the version can never deploy the previous release's images. Repositories are the
 * package's and not overridden.
 */
export const IMAGE_TAGS_BY_CHART: Record<string, Record<string, string>> = {
  "26.2.16": {
    frontend: "v26.02.03",
    frontend_core: "v26.02.16.2",
    swef: "v26.02.03-s",
    automation: "v26.02.16.2",
    ultron: "v26.02.16.2-u",
    document_converter: "v25.09.17",
    graphql: "v26.02.16.2",
    browser: "latest",
    localllm: "v0.7.0",
    llmproxy: "v1.81.3-stable",
    boost: "v26.02.16.4",
    html_conversion: "v26.02.23.1",
    objstore: "RELEASE.2024-12-18T13-15-44Z",
    mail: "4.4.0",
    smtp: "v3.7.0",
    sqldb: "14.15.0",
    cache: "6.2.16-debian-12-r3",
    docdb: "5.0.24-debian-11-r20",
    mq: "3.8.35-debian-11-r5",
    gateway: "3.7",
    vectordb: "pg16",
    metrics: "v3.1.0",
    dashboards: "11.6.5",
    logs: "3.3.1",
    logagent: "3.3.1",
    opentelemetry: "0.117.0",
    kubeStateMetrics: "v2.14.0",
    nodeExporter: "v1.8.2",
    blackboxExporter: "v0.25.0",
    traces: "2.7.0",
  },
};

/** The image tags of a chart version; empty when the version has no entry (the chart's own apply). */
export const imageTagsFor = (chartVersion: string): Record<string, string> => IMAGE_TAGS_BY_CHART[chartVersion] ?? {};

/** In-cluster DNS name of a chart component. */
export function serviceHost(release: string, namespace: string, component: string): string {
  return `${release}-${component.replace(/_/g, "-")}.${namespace}.svc.cluster.local`;
}
