/**
 * The API pods' template, built purely from the stack's `api` group and the derived settings:
 * Pod Security "restricted", probes on /health and /health/ready, a preStop pause before the
 * drain, spread across nodes, a writable /tmp on a read-only root, the agents file and the
 * database CA bundle mounted when there are any.
 */
import type * as pulumi from "@pulumi/pulumi";
import type * as k8s from "@pulumi/kubernetes";
import type { StackSpec } from "../config.js";
import { CA_DIR } from "./ca-bundle.js";
import { AGENTS_DIR, PRE_STOP_SLEEP_SECONDS, type ServiceSettings } from "./settings.js";

export interface ApiPodInput {
  /** The stack's `api` group: port, resources, scheduling. */
  api: StackSpec["api"];
  /** Derived settings: env and the termination grace period. */
  settings: ServiceSettings;
  /** The image reference the pods run. */
  image: pulumi.Input<string>;
  /** Labels of the pods (and the selector of everything that targets them). */
  labels: Record<string, string>;
  /** The Secret with DATABASE_URL, JWT_SECRET, the LLM key and the storage settings. */
  envSecretName: pulumi.Input<string>;
  /** A ServiceAccount with a cloud role (IRSA), when there is one. */
  serviceAccountName?: pulumi.Input<string>;
  /** An imagePullSecret, when the nodes cannot pull the image themselves. */
  pullSecretName?: pulumi.Input<string>;
  /** The inline agents' ConfigMap and its content's checksum (a change rolls the pods). */
  agents?: { configMapName: pulumi.Input<string>; checksum: string };
  /** The ConfigMap with the database's CA bundle, mounted at CA_DIR. */
  caConfigMapName?: pulumi.Input<string>;
}

const probe = (path: string, failureThreshold: number) => ({
  httpGet: { path, port: "http" },
  periodSeconds: 10,
  timeoutSeconds: 3,
  failureThreshold,
});

export function apiPodTemplate(p: ApiPodInput): k8s.types.input.core.v1.PodTemplateSpec {
  const { api, settings: s, labels } = p;
  return {
    metadata: { labels, ...(p.agents && { annotations: { "agentport.dev/agents-checksum": p.agents.checksum } }) },
    spec: {
      terminationGracePeriodSeconds: s.terminationGracePeriodSeconds,
      nodeSelector: api.nodeSelector as Record<string, string>,
      tolerations: api.tolerations as never,
      // Pod Security "restricted": non-root, RuntimeDefault seccomp, no privilege escalation,
      // no capabilities; and no Kubernetes API token, which the service never uses.
      securityContext: {
        runAsNonRoot: true,
        runAsUser: 1000,
        runAsGroup: 1000,
        fsGroup: 1000,
        seccompProfile: { type: "RuntimeDefault" },
      },
      automountServiceAccountToken: false,
      ...(p.serviceAccountName ? { serviceAccountName: p.serviceAccountName } : {}),
      ...(p.pullSecretName ? { imagePullSecrets: [{ name: p.pullSecretName }] } : {}),
      // Replicas on different nodes where the cluster has them: one node's loss is not the API's.
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: "kubernetes.io/hostname",
          whenUnsatisfiable: "ScheduleAnyway",
          labelSelector: { matchLabels: labels },
        },
      ],
      containers: [
        {
          name: "api",
          image: p.image,
          ports: [{ name: "http", containerPort: api.port }],
          env: Object.entries(s.env).map(([k, value]) => ({ name: k, value })),
          envFrom: [{ secretRef: { name: p.envSecretName } }],
          resources: api.resources as never,
          livenessProbe: probe("/health", 3),
          readinessProbe: probe("/health/ready", 2),
          startupProbe: { httpGet: { path: "/health", port: "http" }, periodSeconds: 2, failureThreshold: 60 },
          // Keep serving while the endpoint is removed from the gateway, then drain on SIGTERM.
          // The kubelet's own sleep (Kubernetes 1.30+): the image needs no sleep binary.
          lifecycle: { preStop: { sleep: { seconds: PRE_STOP_SLEEP_SECONDS } } },
          securityContext: {
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ["ALL"] },
          },
          volumeMounts: [
            { name: "tmp", mountPath: "/tmp" },
            ...(p.agents ? [{ name: "agents", mountPath: AGENTS_DIR, readOnly: true }] : []),
            ...(p.caConfigMapName ? [{ name: "ca", mountPath: CA_DIR, readOnly: true }] : []),
          ],
        },
      ],
      volumes: [
        { name: "tmp", emptyDir: {} },
        ...(p.agents ? [{ name: "agents", configMap: { name: p.agents.configMapName } }] : []),
        ...(p.caConfigMapName ? [{ name: "ca", configMap: { name: p.caConfigMapName } }] : []),
      ],
    },
  };
}
