/**
 * Our API service in the cluster: Namespace, Secret, Deployment, Service, Ingress (with the
 * gateway's timeouts and body settings), HPA, PodDisruptionBudget and the dashboard of its
 * metrics. It uses the platform's sqldb and the same storage as the platform.
 */
import { createHash } from "node:crypto";
import { basename } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { Deployment } from "@pulumi/kubernetes/apps/v1/index.js";
import { HorizontalPodAutoscaler } from "@pulumi/kubernetes/autoscaling/v2/index.js";
import { ConfigMap, Namespace, Secret, Service, ServiceAccount } from "@pulumi/kubernetes/core/v1/index.js";
import { Ingress, NetworkPolicy } from "@pulumi/kubernetes/networking/v1/index.js";
import { PodDisruptionBudget } from "@pulumi/kubernetes/policy/v1/index.js";
import type { StackSpec } from "../config.js";
import { API_LABELS } from "../constants.js";
import { API_SERVICE_ACCOUNT, type ServiceSettings } from "./settings.js";
import { RDS_CA_FILE } from "./ca-bundle.js";
import { apiDashboard } from "./dashboard.js";
import { dbRoleJob } from "./db-role-job.js";
import { pullSecret, type PullCredentials } from "./pull-secret.js";
import { apiPodTemplate } from "./pod.js";
import { copyApiTls } from "./tls-copy.js";

export interface ApiServiceArgs {
  /** The stack's `api` group: namespace, port, replicas and autoscaling, resources, scheduling, agents. */
  api: StackSpec["api"];
  /** What the stack derives for the service (serviceSettings): env, host, TLS, gateway annotations. */
  settings: ServiceSettings;
  /** The namespace the platform's gateway runs in: the only one allowed to reach the pods. */
  gatewayNamespace: string;
  /** DATABASE_URL (secret). */
  databaseUrl: pulumi.Output<string>;
  /** JWT secret shared with the platform (jwt.secret). */
  jwtSecret: pulumi.Output<string>;
  /** Key for the LLM upstream (the LLM proxy master key unless api.llm.apiKey is set). */
  llmApiKey: pulumi.Output<string>;
  /** REDIS_URL for rate limits shared by the replicas (secret), when the stack has a Redis for it. */
  redisUrl?: pulumi.Output<string>;
  /** BLOB_STORE and its settings from the storage variant (secret). */
  storageEnv: pulumi.Output<Record<string, string>>;
  /** The image the pods run (a pinned reference, or the pushed tag with its digest). */
  image: pulumi.Input<string>;
  /** Registry credentials for pulling it (an imagePullSecret), when the nodes cannot pull it themselves. */
  pull?: PullCredentials;
  /**
   * A managed sqldb's master URL and the API's logins with their passwords: a Job creates the
   * roles before the Deployment starts, and `databaseUrl` connects as the active login.
   */
  dbRole?: { adminUrl: pulumi.Output<string>; logins: pulumi.Output<Record<string, string>> };
  /** What the DB-role Job runs: the image, by a reference that moves only with a new build or release (image.ts). */
  jobImage?: pulumi.Input<string>;
  /** An IAM role for the pods' cloud access (IRSA): their ServiceAccount is annotated with it. */
  cloudRoleArn?: pulumi.Output<string>;
  /** PEM bundle the database URL's sslrootcert names (the RDS CAs on AWS), mounted at CA_DIR. */
  caBundle?: string;
  /** The namespace of the platform's dashboards component, when monitoring is on: the API's dashboard goes there. */
  dashboardsNamespace?: string;
}

export class ApiService extends pulumi.ComponentResource {
  /** https://<host>/v1: the OpenAI-compatible base URL. */
  readonly baseUrl: pulumi.Output<string>;
  /** https://<host>/mcp: the MCP endpoint. */
  readonly mcpUrl: pulumi.Output<string>;
  readonly namespace: pulumi.Output<string>;
  /** With `api.tlsSourceNamespace`: the certificate copies the Ingress serves, each checked (tls-copy.ts). */
  readonly tlsSecrets?: pulumi.Output<string[]>;

  constructor(name: string, args: ApiServiceArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super("agentport:api:ApiService", name, {}, opts);
    const { api, settings: s } = args;
    const labels = { ...API_LABELS };
    const ns = new Namespace(`${name}-ns`, { metadata: { name: api.namespace, labels } }, { parent: this });
    const scope: Scope = { name, namespace: ns.metadata.name, labels, parent: { parent: this } };

    const secret = createEnvSecret(scope, args, Boolean(s.llmBaseUrl));
    const agents = createAgentsConfig(scope, api.agents);
    const serviceAccount = args.cloudRoleArn ? createServiceAccount(scope, args.cloudRoleArn) : undefined;
    const pull = args.pull ? pullSecret(`${name}-pull`, scope.namespace, labels, args.pull, scope.parent) : undefined;
    // The database's CA bundle, where Node's roots do not cover it (the URL names RDS_CA_FILE).
    const ca = args.caBundle
      ? new ConfigMap(
          `${name}-ca`,
          { metadata: { namespace: scope.namespace, labels }, data: { [basename(RDS_CA_FILE)]: args.caBundle } },
          scope.parent,
        )
      : undefined;
    const roleJob = args.dbRole ? createRoleJob(scope, args, args.dbRole) : undefined;
    const template = apiPodTemplate({
      api,
      settings: s,
      image: args.image,
      labels,
      envSecretName: secret.metadata.name,
      serviceAccountName: serviceAccount?.metadata.name,
      pullSecretName: pull?.metadata.name,
      agents,
      caConfigMapName: ca?.metadata.name,
    });
    const deployment = createDeployment(scope, template, roleJob);
    // Where no cert-manager issues it: the API's certificate, copied from api.tlsSourceNamespace.
    const tlsCopies = copyApiTls(api, s.host, scope.namespace, s.tls, scope.parent);
    createExposure(scope, api, s, tlsCopies?.tls ?? s.tls, args.gatewayNamespace);
    createScaling(scope, api, deployment);
    if (args.dashboardsNamespace) apiDashboard(`${name}-dashboard`, args.dashboardsNamespace, scope.parent);
    this.baseUrl = pulumi.output(`${s.publicUrl}/v1`);
    this.mcpUrl = pulumi.output(`${s.publicUrl}/mcp`);
    this.namespace = scope.namespace;
    this.tlsSecrets = tlsCopies?.checked;
    this.registerOutputs({ baseUrl: this.baseUrl, mcpUrl: this.mcpUrl, namespace: this.namespace });
  }
}

/** What every part of the service shares: the component's name, namespace, labels and parent. */
interface Scope {
  name: string;
  namespace: pulumi.Output<string>;
  labels: Record<string, string>;
  parent: { parent: pulumi.Resource };
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

function createEnvSecret(scope: Scope, args: ApiServiceArgs, withLlmKey: boolean): Secret {
  const { name, namespace, labels } = scope;
  return new Secret(
    `${name}-env`,
    {
      metadata: { namespace, labels },
      type: "Opaque",
      stringData: pulumi.secret(
        pulumi
          .all([args.databaseUrl, args.jwtSecret, args.llmApiKey, args.storageEnv, args.redisUrl])
          .apply(([db, jwt, llm, storage, redis]) => ({
            DATABASE_URL: db,
            ...(redis ? { REDIS_URL: redis } : {}),
            JWT_SECRET: jwt,
            ...(withLlmKey ? { LLM_API_KEY: llm } : {}),
            ...storage,
          })),
      ),
    },
    scope.parent,
  );
}

/** Inline agents travel as a ConfigMap; a change rolls the pods through the checksum annotation. */
function createAgentsConfig(
  scope: Scope,
  agents: StackSpec["api"]["agents"],
): { configMapName: pulumi.Output<string>; checksum: string } | undefined {
  if (!agents) return undefined;
  const json = JSON.stringify({ agents }, null, 2);
  const configMap = new ConfigMap(
    `${scope.name}-agents`,
    { metadata: { namespace: scope.namespace, labels: scope.labels }, data: { "agents.json": json } },
    scope.parent,
  );
  return { configMapName: configMap.metadata.name, checksum: sha256(json) };
}

/**
 * IRSA: EKS's pod identity webhook gives pods of this ServiceAccount a projected web-identity
 * token for the role (a volume of its own; the Kubernetes API token stays unmounted).
 */
function createServiceAccount(scope: Scope, roleArn: pulumi.Output<string>): ServiceAccount {
  const { namespace, labels } = scope;
  return new ServiceAccount(
    `${scope.name}-sa`,
    {
      metadata: {
        namespace,
        labels,
        name: API_SERVICE_ACCOUNT,
        annotations: { "eks.amazonaws.com/role-arn": roleArn },
      },
      automountServiceAccountToken: false,
    },
    scope.parent,
  );
}

/**
 * In a namespace of its own: whoever may read the API namespace's Secrets does not read the
 * master's URL (see db-role-job.ts for why it cannot be deleted after the Job).
 */
function createRoleJob(
  scope: Scope,
  args: ApiServiceArgs,
  dbRole: NonNullable<ApiServiceArgs["dbRole"]>,
): pulumi.Resource {
  return dbRoleJob(
    `${scope.name}-db-role`,
    {
      namespace: `${args.api.namespace}-db-role`,
      labels: scope.labels,
      image: args.jobImage ?? args.image,
      adminUrl: dbRole.adminUrl,
      logins: dbRole.logins,
      caBundle: args.caBundle,
      pull: args.pull,
    },
    scope.parent,
  );
}

function createDeployment(
  scope: Scope,
  template: ReturnType<typeof apiPodTemplate>,
  roleJob: pulumi.Resource | undefined,
): Deployment {
  const { namespace, labels } = scope;
  return new Deployment(
    `${scope.name}-deployment`,
    {
      metadata: { namespace, labels },
      spec: {
        // No `replicas`: the HPA owns it. Under server-side apply a Deployment that sets it would
        // fail the next `up` after a scale event with a field-manager conflict on .spec.replicas.
        // A new Deployment starts at 1 and the HPA raises it to minReplicas (api.replicas).
        selector: { matchLabels: labels },
        strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
        template,
      },
    },
    // The role it connects as must exist first.
    { ...scope.parent, dependsOn: roleJob ? [roleJob] : [] },
  );
}

/** The Service, the Ingress for the API and MCP paths, and the policy that admits only the gateway's namespace. */
function createExposure(
  scope: Scope,
  api: StackSpec["api"],
  s: ServiceSettings,
  tls: pulumi.Input<ServiceSettings["tls"]>,
  gatewayNamespace: string,
): void {
  const { name, namespace, labels, parent } = scope;
  const service = new Service(
    `${name}-svc`,
    {
      metadata: { namespace, labels, annotations: s.serviceAnnotations },
      spec: { selector: labels, ports: [{ name: "http", port: 80, targetPort: "http" }] },
    },
    parent,
  );
  new Ingress(
    `${name}-ingress`,
    {
      metadata: { namespace, labels, annotations: s.ingressAnnotations },
      spec: {
        ingressClassName: api.ingressClassName,
        tls,
        rules: [
          {
            host: s.host,
            // The API and MCP only: /metrics and /health stay inside the cluster.
            http: {
              paths: ["/v1", "/mcp"].map((path) => ({
                path,
                pathType: "Prefix",
                backend: { service: { name: service.metadata.name, port: { name: "http" } } },
              })),
            },
          },
        ],
      },
    },
    parent,
  );
  // Only the platform's namespace (its gateway, and its metrics component scraping /metrics)
  // reaches the pods. Egress stays open: the managed databases, caches and the LLM upstream
  // live at cloud addresses outside the cluster that a pod selector cannot name.
  new NetworkPolicy(
    `${name}-ingress-policy`,
    {
      metadata: { namespace, labels },
      spec: {
        podSelector: { matchLabels: labels },
        policyTypes: ["Ingress"],
        ingress: [
          {
            from: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": gatewayNamespace } } }],
            ports: [{ protocol: "TCP", port: "http" }],
          },
        ],
      },
    },
    parent,
  );
}

/** The autoscaler that owns the replica count, and the disruption budget that keeps one pod up. */
function createScaling(scope: Scope, api: StackSpec["api"], deployment: Deployment): void {
  const { name, namespace, labels, parent } = scope;
  new HorizontalPodAutoscaler(
    `${name}-hpa`,
    {
      metadata: { namespace, labels },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: deployment.metadata.name },
        minReplicas: api.replicas,
        maxReplicas: Math.max(api.maxReplicas, api.replicas),
        metrics: [
          {
            type: "Resource",
            resource: { name: "cpu", target: { type: "Utilization", averageUtilization: api.targetCpuPercent } },
          },
        ],
        // Scale down slowly: a removed pod drains its open streams first.
        behavior: { scaleDown: { stabilizationWindowSeconds: 300 } },
      },
    },
    parent,
  );
  new PodDisruptionBudget(
    `${name}-pdb`,
    {
      metadata: { namespace, labels },
      spec: { selector: { matchLabels: labels }, ...(api.replicas > 1 ? { minAvailable: 1 } : { maxUnavailable: 1 }) },
    },
    parent,
  );
}
