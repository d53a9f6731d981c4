import { beforeAll, describe, expect, it } from "vitest";
import {
  expectPinnedApiImage,
  expectProtected,
  kubernetesObjects,
  expectApiObjectsDeployable,
  expectValidKubernetesObjects,
  at,
  expectNoPlaintextSecrets,
  planFor,
  types,
} from "./plan-helpers.js";
import { evaluate } from "../../infra/policy/policies.js";
import { mutated, policyInputs } from "./policy-inputs.js";
import { kubernetesDiff } from "./kubernetes-diff.js";

let r: Awaited<ReturnType<typeof planFor>>;
beforeAll(async () => {
  r = await planFor("onprem");
});

describe("plan: onprem (objstore in-cluster, external services by host)", () => {
  it("renders the same plan as the stored one", async () => {
    await expect(r.text).toMatchFileSnapshot("./plans/onprem.plan.txt");
  });
  it("declares Kubernetes objects that validate against the official schemas, with no unknown field", async () => {
    await expectValidKubernetesObjects(r.plan);
  });
  it("declares API objects a real cluster and gateway take as meant", () => {
    expectApiObjectsDeployable(r.plan, "onprem");
  });
  it("runs the release image mirrored into the corporate registry, pinned by digest, and pulls it with a secret", () => {
    expect(expectPinnedApiImage(r.plan)).toMatch(/^registry\.corp\.example\.internal\/agentport@sha256:[0-9a-f]{64}$/);
    const deployment = kubernetesObjects(r.plan).find((o) => o.obj.kind === "Deployment")!.obj;
    expect(deployment.spec.template.spec.imagePullSecrets).toEqual([{ name: "api-pull" }]);
    expect(
      JSON.parse(kubernetesObjects(r.plan).find((o) => o.name === "api-pull")!.obj.stringData[".dockerconfigjson"])
        .auths,
    ).toHaveProperty(["registry.corp.example.internal"]);
  });
  it("copies the corporate certificate the API's Ingress names from the platform's namespace on every run", () => {
    const ingress = kubernetesObjects(r.plan).find((o) => o.obj.kind === "Ingress")!.obj;
    const copy = kubernetesObjects(r.plan).find((o) => o.name === "api-tls-corp-wildcard-tls")!.obj;
    // The mocks answer an auto-named object with its logical name; the provider adds a random suffix.
    expect(ingress.spec.tls).toEqual([
      { secretName: "api-tls-corp-wildcard-tls", hosts: ["api.agents.corp.example.com"] },
    ]);
    expect(copy).toMatchObject({ type: "kubernetes.io/tls", metadata: { namespace: ingress.metadata.namespace } });
    expect(Object.keys(copy.data).sort()).toEqual(["tls.crt", "tls.key"]);
    expect(r.plan.outputs.apiTlsSecrets.value).toEqual(["agentport/api-tls-corp-wildcard-tls"]);
    // The source is read, not owned: no resource of the plan is the platform's Secret.
    expect(
      r.plan.resources.filter((x) => x.type === "kubernetes:core/v1:Secret" && x.name.startsWith("api-tls-source")),
    ).toEqual([]);
  });
  it("replaces the copy of a renewed certificate create-before-delete, and the Ingress moves to the new copy", () => {
    const copy = kubernetesObjects(r.plan).find((o) => o.name === "api-tls-corp-wildcard-tls")!.obj;
    const renewed = { ...copy, data: { "tls.crt": "renewed", "tls.key": "renewed" } };
    // A Secret's data is replaced, not updated (enableSecretMutable is off): what pulumi-kubernetes' Diff decides.
    expect(kubernetesDiff(copy, renewed)).toEqual({ replace: true, deleteBeforeReplace: false });
    // As the copy was before (named after its source): the certificate would be deleted first.
    const named = { ...copy, metadata: { ...copy.metadata, name: "corp-wildcard-tls" } };
    expect(kubernetesDiff(named, { ...renewed, metadata: named.metadata })).toEqual({
      replace: true,
      deleteBeforeReplace: true,
    });
    // The Ingress names the copy by the name the provider gave it (the mocks: its logical name),
    // so a new copy is what it is updated to, before the old copy is deleted.
    const ingress = kubernetesObjects(r.plan).find((o) => o.obj.kind === "Ingress")!.obj;
    expect(ingress.spec.tls[0].secretName).not.toBe("corp-wildcard-tls");
  });
  it("fills the external* groups from config and switches every in-cluster data service off", () => {
    expect(types(r.plan).filter((t) => t.startsWith("aws:") || t.startsWith("azure-native:"))).toEqual([]);
    for (const svc of ["sqldb", "cache", "docdb", "mq", "vectordb"]) expect(at(r.values, `${svc}.enabled`)).toBe(false);
    expect(at(r.values, "externalSqldb.host")).toBe("pg-main.db.corp.example.internal");
    expect(at(r.values, "externalMq.host")).toBe("rabbitmq.mq.corp.example.internal");
    expect(at(r.values, "externalMq.port")).toBe("5671");
  });
  it("runs objstore distributed on four pods", () => {
    expect(at(r.values, "objstore.enabled")).toBe(true);
    expect(at(r.values, "objstore.mode")).toBe("distributed");
    expect(at(r.values, "objstore.replicas")).toBe(4);
  });
  it("passes the Helm values as a secret and leaks no secret in plaintext", () => {
    expect(r.valuesSecret).toBe(true);
    expectNoPlaintextSecrets(r.plan);
  });
  it("protects the platform release, and the policy pack refuses it unprotected (only local is exempt)", () => {
    expectProtected(r.plan, ["kubernetes:helm.sh/v3:Release"]);
    const inputs = mutated(
      policyInputs(r.plan),
      "kubernetes:helm.sh/v3:Release",
      "platform-chart",
      (x) => (x.protect = false),
    );
    expect(evaluate(inputs).map((v) => v.message)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^platform-chart .*must be protected/)]),
    );
  });
  it("passes the policy pack but for the placeholder digest the stack file ships, which a preview refuses", () => {
    expect(evaluate(policyInputs(r.plan))).toEqual([
      {
        resource: "api-deployment",
        message: expect.stringContaining("spec.template.spec.containers[0].image is pinned to the placeholder digest"),
      },
    ]);
  });
});
