/**
 * The Job that gives the API service a database role of its own on a managed sqldb (the image's
 * `node provision-db.js`): only this Job holds the master user's URL; the Deployment waits for it
 * (pulumi-kubernetes awaits a Job's completion) and connects as the role. Idempotent as the managed
 * master: a changed image or password replaces the Job, which runs again; so does a failed one.
 */
import * as pulumi from "@pulumi/pulumi";
import { Job } from "@pulumi/kubernetes/batch/v1/index.js";
import { Secret } from "@pulumi/kubernetes/core/v1/index.js";
import type * as k8s from "@pulumi/kubernetes/types/input.js";
import { API_DB_ROLE } from "./settings.js";

export interface DbRoleJobArgs {
  namespace: pulumi.Input<string>;
  labels: Record<string, string>;
  /** The API image (it carries provision-db.js). */
  image: pulumi.Input<string>;
  /** The master user's URL (secret), with the same TLS query as the service's. */
  adminUrl: pulumi.Output<string>;
  /** The role's password (secret). */
  appPassword: pulumi.Output<string>;
  /** The CA bundle volume and mount the service uses, when the URL names one. */
  ca?: { volume: k8s.core.v1.Volume; mount: k8s.core.v1.VolumeMount };
  pullSecretName?: pulumi.Input<string>;
}

export function dbRoleJob(name: string, args: DbRoleJobArgs, opts: pulumi.CustomResourceOptions): Job {
  const secret = new Secret(
    `${name}-admin`,
    {
      metadata: { namespace: args.namespace, labels: args.labels },
      type: "Opaque",
      stringData: pulumi.secret(pulumi.all([args.adminUrl, args.appPassword]).apply(([ADMIN_DATABASE_URL, APP_PASSWORD]) => ({ ADMIN_DATABASE_URL, APP_PASSWORD }))),
    },
    opts,
  );
  return new Job(
    name,
    {
      // pulumi-kubernetes awaits a Job until its Complete condition, fails the `up` at once on its
      // Failed condition (or after 10 minutes), and by default awaits the same unready Job again
      // on the next `up`: a failed Job (database unreachable, bad password) would wedge the stack
      // until deleted by hand. replaceUnready makes the next `up` replace it and run it afresh.
      // No ttlSecondsAfterFinished: the cluster deleting the Job behind Pulumi's back would make a
      // refresh re-create (and re-run) it.
      metadata: { namespace: args.namespace, labels: args.labels, annotations: { "pulumi.com/replaceUnready": "true" } },
      spec: {
        // A few retries ride out a database that is still starting; the deadline ends the Job as
        // Failed (with the reason in its pods' logs) well before Pulumi's 10-minute await gives up.
        backoffLimit: 3,
        activeDeadlineSeconds: 300,
        template: {
          metadata: { labels: { ...args.labels, "app.kubernetes.io/component": "db-role" } },
          spec: {
            // Never: each attempt is a pod of its own whose logs stay readable after it failed.
            restartPolicy: "Never",
            automountServiceAccountToken: false,
            securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, seccompProfile: { type: "RuntimeDefault" } },
            ...(args.pullSecretName ? { imagePullSecrets: [{ name: args.pullSecretName }] } : {}),
            containers: [
              {
                name: "provision-db",
                image: args.image,
                command: ["node", "provision-db.js"],
                env: [
                  { name: "APP_ROLE", value: API_DB_ROLE },
                  { name: "DATABASE_SCHEMA", value: "agentport" },
                ],
                envFrom: [{ secretRef: { name: secret.metadata.name } }],
                securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] } },
                resources: { requests: { cpu: "50m", memory: "64Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
                ...(args.ca ? { volumeMounts: [args.ca.mount] } : {}),
              },
            ],
            ...(args.ca ? { volumes: [args.ca.volume] } : {}),
          },
        },
      },
    },
    opts,
  );
}
