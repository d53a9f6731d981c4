/**
 * The platform: one Helm release of the vendor chart. The values tree comes from the pure
 * builder and goes in as one secret, because Release values have leaked to plaintext state
 * otherwise.
 */
import * as pulumi from "@pulumi/pulumi";
import { Release, type ReleaseArgs } from "@pulumi/kubernetes/helm/v3/index.js";
import type { StackSpec } from "../config.js";
import type { Values } from "./values/types.js";
import { protectState } from "../protect.js";

/** Where the chart comes from and how Helm installs it (the stack's `platform` group). */
export type ChartSource = Pick<
  StackSpec["platform"],
  "releaseName" | "namespace" | "chart" | "version" | "repository" | "chartCredentials" | "timeoutSeconds" | "atomic"
>;

export interface PlatformReleaseArgs {
  /** The chart, its version and source, the release's name and namespace, Helm's install options. */
  chart: ChartSource;
  /** The whole values tree (buildPlatformValues); it goes in as one secret. */
  values: pulumi.Input<Values>;
  /** A Helm post-renderer, relative to the project's directory (docdb-ca.ts on AWS with a managed DocumentDB). */
  postrender?: string;
}

/** The Helm Release's arguments for a chart source and a values tree: pure, tested like the values builders. */
export function createReleaseArgs(p: ChartSource, values: pulumi.Input<Values>, postrender?: string): ReleaseArgs {
  const c = p.chartCredentials;
  const oci = p.repository.startsWith("oci://");
  return {
    name: p.releaseName,
    namespace: p.namespace,
    createNamespace: true,
    // OCI charts are named by their full reference; a Helm repository goes in repositoryOpts with
    // its own credentials (the image registry's are for pulling images, not charts).
    chart: oci ? `${p.repository.replace(/\/+$/, "")}/${p.chart}` : p.chart,
    version: p.version,
    ...(oci
      ? {}
      : {
          repositoryOpts: {
            repo: p.repository,
            ...(c ? { username: c.username, password: pulumi.secret(c.password) } : {}),
          },
        }),
    // Release values have leaked to plaintext state otherwise.
    values: pulumi.secret(pulumi.output(values)),
    timeout: p.timeoutSeconds,
    atomic: p.atomic,
    cleanupOnFail: p.atomic,
    maxHistory: 10,
    ...(postrender ? { postrender } : {}),
  };
}

export class PlatformRelease extends pulumi.ComponentResource {
  /** Release name as installed. */
  readonly releaseName: pulumi.Output<string>;
  /** Namespace of the release. */
  readonly namespace: pulumi.Output<string>;
  /** Status of the release as Helm reports it. */
  readonly status: pulumi.Output<string>;

  constructor(name: string, args: PlatformReleaseArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super("agentport:platform:PlatformRelease", name, {}, opts);
    const p = args.chart;
    // Children do not inherit a component's dependsOn: the chart itself waits for the data services.
    // Protected: the chart's PVC-backed components (in-cluster data services, objstore, monitoring,
    // mail) go with it, so `pulumi up` refuses a replace or delete until unprotected.
    const release = new Release(`${name}-chart`, createReleaseArgs(p, args.values, args.postrender), {
      parent: this,
      dependsOn: opts.dependsOn,
      protect: protectState(),
    });
    this.releaseName = release.name.apply((n) => n ?? p.releaseName);
    this.namespace = release.namespace.apply((n) => n ?? p.namespace);
    this.status = release.status.apply((s) => s?.status ?? "unknown");
    this.registerOutputs({ releaseName: this.releaseName, namespace: this.namespace, status: this.status });
  }
}
