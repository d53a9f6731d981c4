/**
 * The platform: one Helm release of the vendor chart. The values tree comes from the pure
 * builder and goes in as one secret, because Release values have leaked to plaintext state
 * otherwise.
 */
import * as pulumi from "@pulumi/pulumi";
import { Release } from "@pulumi/kubernetes/helm/v3/index.js";
import type { StackSpec } from "../config.js";
import { buildPlatformValues, type ValuesInput } from "./values/index.js";

export interface PlatformReleaseArgs {
  /** The validated stack (platform.* gives chart, version, repository, namespace). */
  spec: StackSpec;
  /** Everything else the values are built from. */
  values: Omit<ValuesInput, "spec">;
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
    const { spec } = args;
    const p = spec.platform;
    const c = p.chartCredentials;
    const oci = p.repository.startsWith("oci://");
    const values = buildPlatformValues({ spec, ...args.values });
    const release = new Release(
      `${name}-chart`,
      {
        name: p.releaseName,
        namespace: p.namespace,
        createNamespace: true,
        // OCI charts are named by their full reference; a Helm repository goes in repositoryOpts with
        // its own credentials (the image registry's are for pulling images, not charts).
        chart: oci ? `${p.repository.replace(/\/+$/, "")}/${p.chart}` : p.chart,
        version: p.version,
        ...(oci ? {} : { repositoryOpts: { repo: p.repository, ...(c ? { username: c.username, password: pulumi.secret(c.password) } : {}) } }),
        values: pulumi.secret(pulumi.output(values)) as unknown as pulumi.Output<Record<string, unknown>>,
        timeout: p.timeoutSeconds,
        atomic: p.atomic,
        cleanupOnFail: p.atomic,
        maxHistory: 10,
      },
      // Children do not inherit a component's dependsOn: the chart itself waits for the data services.
      { parent: this, dependsOn: opts.dependsOn },
    );
    this.releaseName = release.name.apply((n) => n ?? p.releaseName);
    this.namespace = release.namespace.apply((n) => n ?? p.namespace);
    this.status = release.status.apply((s) => s?.status ?? "unknown");
    this.registerOutputs({ releaseName: this.releaseName, namespace: this.namespace, status: this.status });
  }
}
