/** Shared checks for the per-stack plan tests (one stack per test file: the program runs once per process). */
import { expect } from "vitest";
import { formatPlan, releaseValues } from "../../infra/plan/format.js";
import { isSecretEnvelope, runPlan, type Plan } from "../../infra/plan/run.js";
import { STANDIN_PREFIX } from "../../infra/stack/sensitive.js";
import { loadStackLimits } from "../../infra/limits.js";
import { schemaErrors, unknownFields, unwrapSecrets } from "../helpers/k8s-schema.js";

export async function planFor(
  stack: string,
): Promise<{ plan: Plan; text: string; values: Record<string, unknown>; valuesSecret: boolean }> {
  const plan = await runPlan(stack);
  const rv = releaseValues(plan);
  if (!rv) throw new Error("no platform release in the plan");
  return { plan, text: formatPlan(plan), values: rv.values, valuesSecret: rv.wasSecret };
}

/** Paths of strings outside secret envelopes that contain a known secret value. */
export function plaintextSecrets(value: unknown, secrets: Set<string>, path = ""): string[] {
  if (isSecretEnvelope(value)) return [];
  if (typeof value === "string") {
    if (value.includes(STANDIN_PREFIX)) return [path];
    return [...secrets].some((s) => value.includes(s)) ? [path] : [];
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => plaintextSecrets(v, secrets, `${path}[${i}]`));
  if (value && typeof value === "object")
    return Object.entries(value).flatMap(([k, v]) => plaintextSecrets(v, secrets, `${path}.${k}`));
  return [];
}

export { at } from "../../infra/tree.js";

export function expectNoPlaintextSecrets(plan: Plan): void {
  const leaks = plan.resources.flatMap((r) => plaintextSecrets(r.inputs, plan.secretValues, `${r.type}::${r.name}`));
  expect(leaks).toEqual([]);
  for (const [name, o] of Object.entries(plan.outputs)) {
    if (!o.secret) expect(plaintextSecrets(o.value, plan.secretValues, name)).toEqual([]);
  }
}

export const types = (plan: Plan) => plan.resources.map((r) => r.type);

/** Every Kubernetes object the program declares itself (the Helm chart renders its own). */
export function kubernetesObjects(
  plan: Plan,
): Array<{ name: string; obj: { apiVersion: string; kind: string } & Record<string, any> }> {
  return plan.resources
    .filter((r) => r.type.startsWith("kubernetes:") && !r.type.startsWith("kubernetes:helm.sh"))
    .map((r) => ({ name: r.name, obj: unwrapSecrets(r.inputs) as { apiVersion: string; kind: string } }));
}

/** Each object validates against the official schemas, with no field the API server does not know. */
export async function expectValidKubernetesObjects(plan: Plan): Promise<void> {
  const objects = kubernetesObjects(plan);
  expect(objects.length).toBeGreaterThan(5);
  for (const { name, obj } of objects) {
    expect(await schemaErrors(obj), `${name} (${obj.kind})`).toEqual([]);
    expect(unknownFields(obj), `${name} (${obj.kind})`).toEqual([]);
  }
}

/**
 * What a real cluster needs of the API's objects, beyond their schemas: fields the HPA owns left
 * alone, the gateway's annotations where its controller reads them, restricted pod security.
 */
export function expectApiObjectsDeployable(plan: Plan, stack: string): void {
  const objects = kubernetesObjects(plan);
  const one = (kind: string, name = "api") => objects.find((o) => o.obj.kind === kind && o.name.startsWith(name))!.obj;
  const deployment = one("Deployment");
  expect(objects.some((o) => o.obj.kind === "HorizontalPodAutoscaler")).toBe(true);
  expect(deployment.spec.replicas).toBeUndefined(); // owned by the HPA under server-side apply

  const limits = loadStackLimits(stack);
  expect(one("Service", "api-svc").metadata.annotations).toEqual({
    "konghq.com/connect-timeout": String(limits.connectTimeoutMs),
    "konghq.com/read-timeout": String(limits.readTimeoutMs),
    "konghq.com/write-timeout": String(limits.writeTimeoutMs),
  });
  const ingress = one("Ingress", "api-ingress").metadata.annotations;
  expect(ingress).toMatchObject({ "konghq.com/request-buffering": "false", "konghq.com/response-buffering": "false" });
  expect(Object.keys(ingress).filter((k) => k.startsWith("nginx.") || k.endsWith("-timeout"))).toEqual([]);

  const pod = deployment.spec.template.spec;
  expect(pod.securityContext).toMatchObject({
    runAsNonRoot: true,
    runAsUser: 1000,
    seccompProfile: { type: "RuntimeDefault" },
  });
  expect(pod.automountServiceAccountToken).toBe(false);
  expect(pod.topologySpreadConstraints[0].topologyKey).toBe("kubernetes.io/hostname");
  const container = pod.containers[0];
  expect(container.securityContext).toMatchObject({
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    capabilities: { drop: ["ALL"] },
  });
  expect(container.lifecycle.preStop).toEqual({ sleep: { seconds: expect.any(Number) } });
  expect(one("NetworkPolicy").spec.policyTypes).toEqual(["Ingress"]);
}

/** The API's DATABASE_URL as the pods get it (from its Secret). */
export function apiDatabaseUrl(plan: Plan): string {
  const secret = kubernetesObjects(plan).find((o) => o.obj.kind === "Secret" && o.name === "api-env")!.obj;
  return secret.stringData.DATABASE_URL;
}

/** The Deployment runs exactly what the stack pinned or the build pushed: a digest or a release tag. */
export function expectPinnedApiImage(plan: Plan): string {
  const deployment = kubernetesObjects(plan).find((o) => o.obj.kind === "Deployment")!.obj;
  const image = deployment.spec.template.spec.containers[0].image as string;
  expect(plan.outputs.apiImageRef.value).toBe(image);
  expect(image).toMatch(/(@sha256:[0-9a-f]{64}|:\d+\.\d+\.\d+)$/);
  return image;
}

/** Resource names of `type` in the plan. */
export const named = (plan: Plan, type: string) => plan.resources.filter((r) => r.type === type).map((r) => r.name);
export const optionsOf = (plan: Plan, type: string, name: string) => plan.options.get(`${type}::${name}`)!;

/** Every resource of these types is protected: `pulumi up` refuses to replace or delete it. */
export function expectProtected(plan: Plan, stateful: string[]): void {
  for (const type of stateful) {
    const names = named(plan, type);
    expect(names.length, type).toBeGreaterThan(0);
    for (const name of names) expect(optionsOf(plan, type, name).protect, `${type} ${name}`).toBe(true);
  }
}

/** AWS stacks: the image is built, pushed to the ECR repository the stack creates, and run by digest. */
export function expectEcrBuiltImage(plan: Plan): void {
  const built = plan.resources.find((x) => x.type === "docker-build:index:Image")!;
  const repo = plan.resources.find((x) => x.type === "aws:ecr/repository:Repository")!;
  expect(repo.inputs).toMatchObject({
    name: `agentport/${plan.stack}/api`,
    imageScanningConfiguration: { scanOnPush: true },
    forceDelete: false,
  });
  const tag = (built.inputs.tags as string[])[0];
  // Tags are immutable except the build's marker tag, which a rebuild must be able to move.
  expect(repo.inputs.imageTagMutability).toBe("IMMUTABLE_WITH_EXCLUSION");
  expect(repo.inputs.imageTagMutabilityExclusionFilters).toEqual([
    { filter: tag.split(":").pop(), filterType: "WILDCARD" },
  ]);
  expect(tag).toMatch(new RegExp(`^\\d+\\.dkr\\.ecr\\.ap-northeast-1\\.amazonaws\\.com/agentport/${plan.stack}/api:`));
  expect(built.inputs.push).toBe(true);
  expect(expectPinnedApiImage(plan)).toMatch(new RegExp(`^${tag.replaceAll(".", "\\.")}@sha256:[0-9a-f]{64}$`));
  // ECR is read by the nodes' role: no pull secret.
  expect(kubernetesObjects(plan).some((o) => o.name === "api-pull")).toBe(false);
  expectImageBeforeRelease(plan);
}

/** AWS stacks: the database URL verifies RDS's certificate against the bundle the pods mount. */
export function expectRdsTls(plan: Plan): void {
  expect(apiDatabaseUrl(plan)).toMatch(/\?sslmode=verify-full&sslrootcert=\/etc\/agentport-ca\/aws-rds\.pem$/);
  const objects = kubernetesObjects(plan);
  const ca = objects.find((o) => o.obj.kind === "ConfigMap" && o.name === "api-ca")!.obj;
  expect(ca.data["aws-rds.pem"]).toContain("BEGIN CERTIFICATE");
  const pod = objects.find((o) => o.obj.kind === "Deployment")!.obj.spec.template.spec;
  expect(pod.containers[0].volumeMounts).toContainEqual({ name: "ca", mountPath: "/etc/agentport-ca", readOnly: true });
  expect(pod.volumes).toContainEqual({ name: "ca", configMap: { name: "api-ca" } });
}

/** Managed sqldb: the API connects as a login of its own, which a Job creates with the master's URL first. */
export function expectApiOwnDbRole(plan: Plan): void {
  // Generation 0 of the two alternating logins (db-logins.ts).
  expect(new URL(apiDatabaseUrl(plan)).username).toBe("agentport_api_a");
  const objects = kubernetesObjects(plan);
  const job = objects.find((o) => o.obj.kind === "Job" && o.name === "api-db-role")!.obj;
  expect(job.spec.template.spec.containers[0].command).toEqual(["node", "provision-db.js"]);
  // Keyed on what it provisions: no image digest in its template, the script's key in an annotation.
  expect(JSON.stringify(job.spec.template)).not.toMatch(/@sha256:/);
  expect(job.spec.template.metadata.annotations["agentport.dev/provisions"]).toMatch(/^[0-9a-f]{32}$/);
  const admin = objects.find((o) => o.obj.kind === "Secret" && o.name === "api-db-role-admin")!.obj;
  expect(new URL(admin.stringData.ADMIN_DATABASE_URL).username).not.toMatch(/^agentport_api/);
  expect(Object.keys(JSON.parse(admin.stringData.APP_LOGINS))).toEqual(["agentport_api_a", "agentport_api_b"]);
  // The master's URL lives beside the Job, in a namespace of its own, never in the API's.
  expect(admin.metadata.namespace).toBe("agentport-db-role");
  // A changed password replaces the Secret (a new name), hence the Job's template: the Job runs again.
  expect(admin.metadata.name).toBeUndefined();
  expect(plan.options.get("kubernetes:core/v1:Secret::api-db-role-admin")!.replaceOnChanges).toEqual(["stringData"]);
  expect(job.spec.template.spec.containers[0].envFrom).toEqual([{ secretRef: { name: "api-db-role-admin" } }]);
  expect(job.metadata.namespace).toBe("agentport-db-role");
  const masterUrl = admin.stringData.ADMIN_DATABASE_URL;
  const inApiNamespace = objects.filter((o) => o.obj.metadata?.namespace === "agentport");
  expect(inApiNamespace.filter((o) => JSON.stringify(o.obj).includes(masterUrl)).map((o) => o.name)).toEqual([]);
  expect(plan.options.get("kubernetes:apps/v1:Deployment::api-deployment")!.dependsOn).toEqual(["api-db-role"]);
  // A failed run never wedges the stack: the next `up` replaces the unready Job; each attempt's
  // pod keeps its logs; the Job fails before Pulumi's 10-minute await does.
  expect(job.metadata.annotations).toEqual({ "pulumi.com/replaceUnready": "true" });
  expect(job.spec).toMatchObject({ backoffLimit: 3, activeDeadlineSeconds: 300 });
  expect(job.spec.activeDeadlineSeconds).toBeLessThan(600);
  expect(job.spec.template.spec.restartPolicy).toBe("Never");
  expect(job.spec.ttlSecondsAfterFinished).toBeUndefined();
}

/** A stack that builds its image: the platform release waits for the build, so a failed build changes nothing in the cluster. */
export function expectImageBeforeRelease(plan: Plan): void {
  expect(plan.options.get("kubernetes:helm.sh/v3:Release::platform-chart")!.dependsOn).toContain("api-image");
}

/** AWS with IRSA: the API reaches S3 with a role of its own, and holds no static key. */
export function expectApiIrsa(plan: Plan): void {
  const role = plan.resources.find((x) => x.type === "aws:iam/role:Role" && x.name.endsWith("api-role"))!;
  const trust = JSON.parse(role.inputs.assumeRolePolicy as string).Statement[0];
  expect(trust.Action).toBe("sts:AssumeRoleWithWebIdentity");
  expect(Object.values(trust.Condition.StringEquals)).toContain("system:serviceaccount:agentport:agentport-api");
  const objects = kubernetesObjects(plan);
  const sa = objects.find((o) => o.obj.kind === "ServiceAccount")!.obj;
  expect(sa.metadata.name).toBe("agentport-api");
  expect(sa.metadata.annotations["eks.amazonaws.com/role-arn"]).toBeTruthy();
  expect(objects.find((o) => o.obj.kind === "Deployment")!.obj.spec.template.spec.serviceAccountName).toBe(
    "agentport-api",
  );
  const env = objects.find((o) => o.obj.kind === "Secret" && o.name === "api-env")!.obj.stringData;
  expect(Object.keys(env).filter((k) => k.startsWith("S3_ACCESS") || k.startsWith("S3_SECRET"))).toEqual([]);
}
