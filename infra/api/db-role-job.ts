/**
 * The Job that gives the API service database roles of its own on a managed sqldb (the image's
 * `node provision-db.js`): only this Job holds the master user's URL; the Deployment waits for it
 * (pulumi-kubernetes awaits a Job's completion) and connects as the active login. Idempotent as the
 * managed master.
 *
 * Keyed on what it provisions, not on the API's code: pulumi-kubernetes replaces a Job on any change
 * to its pod template, so the template holds only the owner role, the logins, the schema, the
 * provisioning script's hash (an annotation), the Secret's generated name (a new password or master
 * URL replaces it) and the image by its build tag (not the digest a code change moves). A deploy of
 * unrelated code leaves the Job as it is and never touches the master; a failed Job is replaced on
 * the next `up` (replaceUnready).
 *
 * The master's URL stays in the Job's Secret while the Job exists, and cannot be removed after it:
 * - an ownerReference (Kubernetes deleting the Secret with the Job) needs the Job's UID, which
 *   pulumi-kubernetes gives only once the Job has completed, after the pod that reads the Secret;
 * - a TTL or a Job deleting its own Secret leaves Pulumi's state holding objects the cluster no
 *   longer has: the next `up` re-creates a replaced Job whose Secret Pulumi thinks exists (the pod
 *   never starts), and a refresh followed by `up` re-creates the Secret without running the Job.
 * So the Job and its Secret live in a namespace of their own, which only the deployer's identity
 * needs to read: whoever may read the API namespace's Secrets does not get the master's URL.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { Job } from "@pulumi/kubernetes/batch/v1/index.js";
import { ConfigMap, Namespace, Secret } from "@pulumi/kubernetes/core/v1/index.js";
import { CA_DIR, RDS_CA_FILE } from "./ca-bundle.js";
import { pullSecret, type PullCredentials } from "./pull-secret.js";
import { API_DB_LOGINS } from "./db-logins.js";
import { API_DB_ROLE } from "./settings.js";

const SCHEMA = "agentport";

/**
 * The provisioning script's identity: its source and the PostgreSQL client it is bundled with (the
 * version package-lock.json pins). A change to either runs the Job again with the new build.
 */
export function provisionScriptHash(
  source = readFileSync(new URL("../../service/src/cli/provision-db.ts", import.meta.url), "utf8"),
  lock = readFileSync(new URL("../../package-lock.json", import.meta.url), "utf8"),
): string {
  const pgVersion = (JSON.parse(lock) as { packages: Record<string, { version?: string }> }).packages["node_modules/pg"]
    ?.version;
  return createHash("sha256")
    .update(source)
    .update(`\0pg@${pgVersion ?? "?"}`)
    .digest("hex");
}

/** What the Job provisions, as one key in its pod template: the owner, the logins, the schema, the script. */
export function provisionKey(logins: string[], scriptHash = provisionScriptHash()): string {
  const what = JSON.stringify({ owner: API_DB_ROLE, logins: [...logins].sort(), schema: SCHEMA, script: scriptHash });
  return createHash("sha256").update(what).digest("hex").slice(0, 32);
}

export interface DbRoleJobArgs {
  /** The Job's own namespace (created here). */
  namespace: string;
  labels: Record<string, string>;
  /** An image carrying provision-db.js, by a reference a code change does not move (image.ts `jobRef`). */
  image: pulumi.Input<string>;
  /** The master user's URL (secret), with the same TLS query as the service's. */
  adminUrl: pulumi.Output<string>;
  /** Each login role with its password (secret). */
  logins: pulumi.Output<Record<string, string>>;
  /** PEM bundle the URL's sslrootcert names, mounted at CA_DIR as the service's pods have it. */
  caBundle?: string;
  /** Registry credentials for pulling the image, when the nodes cannot pull it themselves. */
  pull?: PullCredentials;
}

export function dbRoleJob(name: string, args: DbRoleJobArgs, opts: pulumi.CustomResourceOptions): Job {
  const ns = new Namespace(`${name}-ns`, { metadata: { name: args.namespace, labels: args.labels } }, opts);
  const namespace = ns.metadata.name;
  const meta = { namespace, labels: args.labels };
  const secret = new Secret(
    `${name}-admin`,
    {
      metadata: meta,
      type: "Opaque",
      stringData: pulumi.secret(
        pulumi
          .all([args.adminUrl, args.logins])
          .apply(([ADMIN_DATABASE_URL, logins]) => ({ ADMIN_DATABASE_URL, APP_LOGINS: JSON.stringify(logins) })),
      ),
    },
    // A new password (or master URL) replaces the Secret under a new generated name, which changes
    // the Job's pod template, so the Job is replaced and runs again; updated in place, the Secret
    // would leave the old Job standing and the role with its old password.
    { ...opts, replaceOnChanges: ["stringData"] },
  );
  const ca = args.caBundle
    ? new ConfigMap(`${name}-ca`, { metadata: meta, data: { [basename(RDS_CA_FILE)]: args.caBundle } }, opts)
    : undefined;
  const pull = args.pull ? pullSecret(`${name}-pull`, namespace, args.labels, args.pull, opts) : undefined;
  return new Job(
    name,
    {
      // pulumi-kubernetes awaits a Job until its Complete condition, fails the `up` at once on its
      // Failed condition (or after 10 minutes), and by default awaits the same unready Job again
      // on the next `up`: a failed Job (database unreachable, bad password) would wedge the stack
      // until deleted by hand. replaceUnready makes the next `up` replace it and run it afresh.
      // No ttlSecondsAfterFinished: the cluster deleting the Job behind Pulumi's back would make a
      // refresh re-create (and re-run) it.
      metadata: { ...meta, annotations: { "pulumi.com/replaceUnready": "true" } },
      spec: {
        // A few retries ride out a database that is still starting; the deadline ends the Job as
        // Failed (with the reason in its pods' logs) well before Pulumi's 10-minute await gives up.
        backoffLimit: 3,
        activeDeadlineSeconds: 300,
        template: {
          metadata: {
            labels: { ...args.labels, "app.kubernetes.io/component": "db-role" },
            annotations: { "agentport.dev/provisions": provisionKey([...API_DB_LOGINS]) },
          },
          spec: {
            // Never: each attempt is a pod of its own whose logs stay readable after it failed.
            restartPolicy: "Never",
            automountServiceAccountToken: false,
            securityContext: {
              runAsNonRoot: true,
              runAsUser: 1000,
              runAsGroup: 1000,
              seccompProfile: { type: "RuntimeDefault" },
            },
            ...(pull ? { imagePullSecrets: [{ name: pull.metadata.name }] } : {}),
            containers: [
              {
                name: "provision-db",
                image: args.image,
                // A build tag moves with each push: the node must not run a cached older build.
                imagePullPolicy: pulumi
                  .output(args.image)
                  .apply((i) => (i.includes("@sha256:") ? "IfNotPresent" : "Always")),
                command: ["node", "provision-db.js"],
                env: [
                  { name: "APP_ROLE", value: API_DB_ROLE },
                  { name: "DATABASE_SCHEMA", value: SCHEMA },
                ],
                envFrom: [{ secretRef: { name: secret.metadata.name } }],
                securityContext: {
                  allowPrivilegeEscalation: false,
                  readOnlyRootFilesystem: true,
                  capabilities: { drop: ["ALL"] },
                },
                resources: { requests: { cpu: "50m", memory: "64Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
                ...(ca ? { volumeMounts: [{ name: "ca", mountPath: CA_DIR, readOnly: true }] } : {}),
              },
            ],
            ...(ca ? { volumes: [{ name: "ca", configMap: { name: ca.metadata.name } }] } : {}),
          },
        },
      },
    },
    opts,
  );
}
