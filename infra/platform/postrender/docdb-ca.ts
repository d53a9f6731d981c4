/**
 * The Amazon RDS CA for the platform's pods, delivered with the Helm release itself: a Helm
 * post-renderer (the Release's `postrender`) that adds a ConfigMap holding AWS's RDS CA bundle
 * to the rendered chart and mounts it read-only at DOCDB_CA_DIR in every container of every pod
 * template. DocumentDB's URI names DOCDB_CA_FILE with `tlsCAFile`, so the pods verify TLS from
 * their first start: with `atomic: true` nothing may be left to patch after `up` (Helm waits for
 * the pods and uninstalls a failed first install).
 *
 * Why a post-renderer: the deployment reference gives `externalDocdb` only `enabled` and
 * `mongodb_uri` (no CA value, no extra volumes for the components that read the URI), and which
 * components read the URI is the vendor's business: every pod gets the (public, read-only) bundle.
 *
 * Helm's post-renderer contract (helm.sh/helm/v3 pkg/postrender/exec.go, `execRender.Run`): the
 * rendered manifests on stdin, the manifests to install on stdout, a non-zero exit fails the
 * install or upgrade with stderr in the error. pulumi-kubernetes (provider/pkg/provider/helm_release.go,
 * `helmCreate` and `helmUpdate`) passes the Release's `postrender` to `postrender.NewExec` with no
 * arguments; a relative path is resolved against the provider's working directory, which the
 * Pulumi engine sets to the project's directory (the one holding Pulumi.yaml).
 */
import { basename, dirname } from "node:path";
import { Document, parseAllDocuments } from "yaml";

/** What the platform's pods mount, and what DocumentDB's URI names with tlsCAFile. */
export const DOCDB_CA_FILE = "/etc/agentport-ca/aws-rds.pem";
export const DOCDB_CA_DIR = dirname(DOCDB_CA_FILE);
/** The ConfigMap the post-renderer adds to the release (in the release's namespace). */
export const DOCDB_CA_CONFIGMAP = "agentport-docdb-ca";
/** The Release's `postrender`, relative to the project's directory (stable across machines). */
export const DOCDB_CA_POSTRENDERER = "infra/platform/postrender/docdb-ca.mjs";

const VOLUME = "agentport-docdb-ca";

interface Mount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
}
interface Container {
  name: string;
  volumeMounts?: Mount[];
}
interface PodSpec {
  containers?: Container[];
  initContainers?: Container[];
  volumes?: Array<{ name: string } & Record<string, unknown>>;
}
/** A rendered manifest, as far as a pod template goes. */
interface Manifest {
  kind?: string;
  metadata?: { name?: string };
  spec?: PodSpec & {
    template?: { spec?: PodSpec };
    jobTemplate?: { spec?: { template?: { spec?: PodSpec } } };
  };
}

/** The pod spec inside a workload manifest, or undefined for any other kind. */
function podSpecOf(doc: Manifest): PodSpec | undefined {
  switch (doc.kind) {
    case "Pod":
      return doc.spec;
    case "Deployment":
    case "StatefulSet":
    case "DaemonSet":
    case "ReplicaSet":
    case "ReplicationController":
    case "Job":
      return doc.spec?.template?.spec;
    case "CronJob":
      return doc.spec?.jobTemplate?.spec?.template?.spec;
    default:
      return undefined;
  }
}

function mountInto(podSpec: PodSpec, where: string): void {
  const containers = [...(podSpec.initContainers ?? []), ...(podSpec.containers ?? [])];
  if ((podSpec.volumes ?? []).some((v) => v.name === VOLUME))
    throw new Error(`${where} already has a volume named ${VOLUME}`);
  for (const c of containers) {
    const clash = (c.volumeMounts ?? []).find((m) => m.mountPath === DOCDB_CA_DIR);
    if (clash) throw new Error(`${where} container ${c.name} already mounts ${clash.name} at ${DOCDB_CA_DIR}`);
    c.volumeMounts = [...(c.volumeMounts ?? []), { name: VOLUME, mountPath: DOCDB_CA_DIR, readOnly: true }];
  }
  podSpec.volumes = [...(podSpec.volumes ?? []), { name: VOLUME, configMap: { name: DOCDB_CA_CONFIGMAP } }];
}

/** The rendered chart with the CA's ConfigMap added and mounted in every pod template. */
export function withDocdbCa(manifests: string, caBundle: string): string {
  if (!caBundle.includes("BEGIN CERTIFICATE")) throw new Error("the CA bundle holds no certificate");
  const out: string[] = [];
  for (const parsed of parseAllDocuments(manifests)) {
    if ("errors" in parsed && parsed.errors.length) throw new Error(`rendered manifest: ${parsed.errors[0].message}`);
    const doc = parsed.toJS({ maxAliasCount: -1 }) as Manifest | null;
    if (!doc) continue;
    if (doc.kind === "ConfigMap" && doc.metadata?.name === DOCDB_CA_CONFIGMAP)
      throw new Error(`the chart renders a ConfigMap named ${DOCDB_CA_CONFIGMAP} already`);
    const podSpec = podSpecOf(doc);
    if (podSpec) mountInto(podSpec, `${doc.kind} ${doc.metadata?.name ?? "(unnamed)"}`);
    out.push(new Document(doc).toString({ lineWidth: 0 }));
  }
  const configMap = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: DOCDB_CA_CONFIGMAP, labels: { "app.kubernetes.io/part-of": "agentport" } },
    data: { [basename(DOCDB_CA_FILE)]: caBundle },
  };
  out.push(new Document(configMap).toString({ lineWidth: 0 }));
  return out.map((d) => `---\n${d}`).join("");
}
