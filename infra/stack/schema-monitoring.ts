/** The monitoring stack (reference: Monitoring, and its rows of Limits). */
import { z } from "zod";
import { bool, list, oneOf, positiveInt, ratio, record, resources, str, text } from "./fields.js";

const accessMode = () => oneOf(["ReadWriteOnce", "ReadWriteMany", "ReadWriteOncePod"]);
const duration = () => z.string().regex(/^\d+(ms|s|m|h|d|w|y)$/, "must be a duration such as 15s, 30m, 24h or 15d");

/** nodeSelector, tolerations and resources, as every component takes them. */
const placement = {
  resources: resources().optional(),
  nodeSelector: record().default({}),
  tolerations: list().default([]),
};

/** An existing exporter's Service; its name ("a stack service name") is the chart's own unless set. */
const external = () =>
  z.strictObject({ namespace: text().default("kube-system"), serviceName: text().optional() }).prefault({});

export const monitoring = z
  .strictObject({
    enabled: bool().default(true),
    useTls: bool().default(true),
    metrics: z
      .strictObject({
        ...placement,
        replicaCount: positiveInt().default(1),
        persistence: z
          .strictObject({
            enabled: bool().default(true),
            size: text().default("50Gi"),
            accessMode: accessMode().default("ReadWriteOnce"),
            storageClass: str().default(""),
          })
          .prefault({}),
        additionalScrapeConfigs: list().default([]),
        externalLabels: z.record(z.string(), z.string()).default({}),
        // configs: the package's values file has them (the reference hides them); rendered only when set.
        remoteWrite: z.strictObject({ enabled: bool().default(false), configs: list().optional() }).prefault({}),
        retention: duration().default("15d"),
        scrapeInterval: duration().default("15s"),
        evaluationInterval: duration().default("15s"),
      })
      .prefault({}),
    dashboards: z
      .strictObject({
        ...placement,
        adminUser: text().default("admin"),
        /** Generated unless set (the package default must change in production). */
        adminPassword: text().optional(),
        persistence: z
          .strictObject({
            enabled: bool().default(true),
            size: text().default("5Gi"),
            storageClass: str().default(""),
            accessModes: z.array(accessMode()).default(["ReadWriteOnce"]),
          })
          .prefault({}),
        env: z.record(z.string(), z.string()).default({}),
      })
      .prefault({}),
    logs: z
      .strictObject({
        ...placement,
        enabled: bool().default(true),
        persistence: z
          .strictObject({
            enabled: bool().default(true),
            size: text().default("10Gi"),
            storageClass: str().default(""),
          })
          .prefault({}),
        storage: z
          .strictObject({
            type: oneOf(["filesystem", "s3", "azure"]).default("filesystem"),
            s3: z
              .strictObject({
                bucketName: str().default(""),
                region: str().default(""),
                accessKeyId: str().default(""),
                secretAccessKey: str().default(""),
                endpoint: str().default(""),
                s3ForcePathStyle: bool().default(false),
                insecure: bool().default(false),
              })
              .prefault({}),
            clouda: z
              .strictObject({
                accountName: str().default(""),
                accountKey: str().default(""),
                containerName: str().default(""),
                endpointSuffix: str().default(""),
                useManagedIdentity: bool().default(false),
              })
              .prefault({}),
          })
          .prefault({}),
      })
      .prefault({}),
    logagent: z.strictObject({ ...placement, enabled: bool().default(true) }).prefault({}),
    opentelemetry: z.strictObject({ ...placement, samplerRatio: ratio().default("1.0") }).prefault({}),
    traces: z
      .strictObject({
        ...placement,
        enabled: bool().default(true),
        logLevel: oneOf(["debug", "info", "warn", "error"]).default("info"),
        storage: z.strictObject({ type: oneOf(["local", "s3", "azure", "gcs"]).default("local") }).prefault({}),
        persistence: z
          .strictObject({
            enabled: bool().default(true),
            size: text().default("10Gi"),
            storageClass: str().default(""),
          })
          .prefault({}),
        retention: duration().default("24h"),
        ingester: z.strictObject({ maxBlockDuration: duration().default("30m") }).prefault({}),
        search: z.strictObject({ maxDuration: duration().default("24h") }).prefault({}),
        memBallastSizeMbs: positiveInt().default(1024),
        limits: z
          .strictObject({
            maxTracesPerUser: positiveInt().default(10000),
            maxBytesPerTrace: positiveInt().default(5000000),
            ingestionRateLimitBytes: positiveInt().default(15000000),
            ingestionBurstSizeBytes: positiveInt().default(20000000),
          })
          .prefault({}),
      })
      .prefault({}),
    nodeExporter: z.strictObject({ ...placement, enabled: bool().default(true), external: external() }).prefault({}),
    kubeStateMetrics: z
      .strictObject({ ...placement, enabled: bool().default(true), external: external() })
      .prefault({}),
  })
  .prefault({});
