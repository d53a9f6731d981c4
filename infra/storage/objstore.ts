/**
 * In-cluster storage: the chart's objstore component (distributed by default), with
 * generated access keys and console admin. Nothing is created outside the release; the
 * buckets are created by the chart from storage.secret.objstore.
 */
import * as pulumi from "@pulumi/pulumi";
import type { StackSpec } from "../config.js";
import type { StorageOutputs } from "./types.js";

export interface ObjstoreStorageArgs {
  /** storage.secret.objstore: bucket names, region, path style. */
  settings: StackSpec["storage"]["secret"]["objstore"];
  /** The objstore component group (mode, replicas, persistence, placement). */
  component: StackSpec["objstore"];
  /** Generated or given access key (20) and secret key (40). */
  accessKey: pulumi.Output<string>;
  secretKey: pulumi.Output<string>;
  /** Console admin password. */
  rootPassword: pulumi.Output<string>;
  /** In-cluster endpoint of the objstore service (release-qualified). */
  endpoint: string;
}

/** The objstore's one pod count, consistent with its mode (reference: 4 in distributed mode). */
export function objstoreReplicas(c: Pick<StackSpec["objstore"], "mode" | "replicas">): number {
  return c.mode === "standalone" ? 1 : (c.replicas ?? 4);
}

/** The chart's objstore values: the component group as the stack gives it, the pod count by mode. */
export function objstoreComponentValues(
  c: StackSpec["objstore"],
  rootPassword: pulumi.Input<string>,
): Record<string, unknown> {
  return {
    enabled: true,
    mode: c.mode,
    replicas: objstoreReplicas(c),
    persistence: c.persistence,
    // The chart's console user name is not shown by the reference: rendered only when the stack sets one.
    ...(c.rootUser ? { rootUser: c.rootUser } : {}),
    rootPassword,
  };
}

/** storage.secret.objstore of the chart: the stack's settings with the given or generated keys. */
export function objstoreChartSecret(
  settings: StackSpec["storage"]["secret"]["objstore"],
  accessKey: string,
  secretKey: string,
): Record<string, string> {
  const { REGION, BUCKET, PUBLIC_BUCKET, EXPORT_PROJECT_BUCKET, ULTRON_BUCKET, FORCE_PATH_STYLE } = settings;
  return {
    ACCESS_KEY_ID: accessKey,
    SECRET_ACCESS_KEY: secretKey,
    REGION,
    BUCKET,
    PUBLIC_BUCKET,
    EXPORT_PROJECT_BUCKET,
    ULTRON_BUCKET,
    FORCE_PATH_STYLE,
  };
}

export class ObjstoreStorage extends pulumi.ComponentResource implements StorageOutputs {
  readonly provider = "Minio" as const;
  readonly chartSecret: pulumi.Output<Record<string, string>>;
  readonly componentValues: Record<string, unknown>;
  readonly serviceEnv: pulumi.Output<Record<string, string>>;

  constructor(name: string, args: ObjstoreStorageArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super("agentport:storage:ObjstoreStorage", name, {}, opts);
    const { settings, component: c } = args;
    this.chartSecret = pulumi.secret(
      pulumi.all([args.accessKey, args.secretKey]).apply(([id, secret]) => objstoreChartSecret(settings, id, secret)),
    );
    this.componentValues = objstoreComponentValues(c, args.rootPassword);
    this.serviceEnv = pulumi.secret(
      pulumi.all([args.accessKey, args.secretKey]).apply(([id, secret]): Record<string, string> => ({
        BLOB_STORE: "s3",
        S3_BUCKET: settings.BUCKET,
        S3_REGION: settings.REGION,
        S3_ENDPOINT: args.endpoint,
        S3_ACCESS_KEY_ID: id,
        S3_SECRET_ACCESS_KEY: secret,
        S3_FORCE_PATH_STYLE: "true",
      })),
    );
    this.registerOutputs({ chartSecret: this.chartSecret, serviceEnv: this.serviceEnv });
  }
}
