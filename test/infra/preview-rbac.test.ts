import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import { beforeAll, describe, expect, it } from "vitest";
import { schemaErrors, unknownFields } from "../helpers/k8s-schema.js";
import { rawStack } from "./fixtures.js";
import { kubernetesObjects, planFor } from "./plan-helpers.js";

type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; [k: string]: any };
type Rule = { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] };

const objects = parseAllDocuments(readFileSync("infra/preview/rbac.yaml", "utf8")).map((d) => d.toJS() as Obj);
const one = (kind: string, namespace?: string) =>
  objects.find((o) => o.kind === kind && o.metadata.namespace === namespace)!;
const PREVIEW_USER = "system:serviceaccount:pulumi-preview:pulumi-preview";
/** The REST resource of a kind (the plural RBAC names). */
const resourceOf = (kind: string) => kind.toLowerCase().replace(/y$/, "ie").replace(/s$/, "se") + "s";
const groupOf = (apiVersion: string) => (apiVersion.includes("/") ? apiVersion.split("/")[0] : "");
const allows = (rules: Rule[], group: string, resource: string, verb: string) =>
  rules.some((r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(verb));

/** pull-request previews run with this identity: it must be able to preview and unable to change anything. */
describe("the preview identity's Kubernetes access (infra/preview/rbac.yaml)", () => {
  let plan: Awaited<ReturnType<typeof planFor>>["plan"];
  beforeAll(async () => {
    // prod-aws declares every kind the program has (the DB-role Job, the IRSA ServiceAccount).
    plan = (await planFor("prod-aws")).plan;
  });

  it("declares objects that validate against the official schemas, with no unknown field", async () => {
    expect(objects.map((o) => o.kind)).toContain("ValidatingAdmissionPolicy");
    for (const obj of objects) {
      expect(await schemaErrors(obj), `${obj.kind} ${obj.metadata.name}`).toEqual([]);
      expect(unknownFields(obj), `${obj.kind} ${obj.metadata.name}`).toEqual([]);
    }
  });

  it("reads every object the program declares, in its namespace, but no Secret", () => {
    const declared = kubernetesObjects(plan).map((o) => o.obj);
    expect(declared.length).toBeGreaterThan(8);
    for (const obj of declared) {
      const group = groupOf(obj.apiVersion);
      const resource = resourceOf(obj.kind);
      if (obj.kind === "Namespace") {
        const rules: Rule[] = one("ClusterRole").rules;
        expect(allows(rules, group, resource, "get"), "get namespaces").toBe(true);
        expect(rules[0].resourceNames).toContain(obj.metadata.name);
        continue;
      }
      const rules: Rule[] = one("Role", obj.metadata.namespace).rules;
      // pulumi-kubernetes shows a preview's Forbidden dry-run as the inputs: no write verb is needed.
      expect(allows(rules, group, resource, "get"), `get ${resource} in ${obj.metadata.namespace}`).toBe(
        obj.kind !== "Secret",
      );
    }
  });

  it("reads in the platform's namespace only the TLS Secret onprem copies, by name; never lists Secrets anywhere", () => {
    const rules: Rule[] = one("Role", "platform").rules;
    const secrets = rules.filter((r) => r.resources.includes("secrets"));
    expect(secrets).toEqual([
      { apiGroups: [""], resources: ["secrets"], resourceNames: ["corp-wildcard-tls"], verbs: ["get"] },
    ]);
    const onprem = rawStack("onprem").api;
    expect(onprem.tlsSourceNamespace).toBe("platform");
    expect(onprem.tls.map((t: { secretName: string }) => t.secretName)).toEqual(secrets[0].resourceNames);
    for (const role of objects.filter((o) => o.kind === "Role" || o.kind === "ClusterRole"))
      for (const verb of ["list", "watch", "create", "patch"])
        expect(allows(role.rules, "", "secrets", verb), `${verb} secrets in ${role.metadata.namespace}`).toBe(false);
  });

  it("never grants delete, update, wildcards or privilege escalation, and cluster-wide only the named namespaces", () => {
    const roles = objects.filter((o) => o.kind === "Role" || o.kind === "ClusterRole");
    const verbs = new Set(roles.flatMap((r) => (r.rules as Rule[]).flatMap((x) => x.verbs)));
    expect([...verbs].sort()).toEqual(["get", "list", "watch"]);
    for (const r of roles.flatMap((x) => x.rules as Rule[]))
      expect([...r.apiGroups, ...r.resources]).not.toContain("*");
    const cluster: Rule[] = one("ClusterRole").rules;
    expect(cluster).toEqual([
      {
        apiGroups: [""],
        resources: ["namespaces"],
        resourceNames: ["agentport", "agentport-db-role", "platform"],
        verbs: ["get"],
      },
    ]);
    for (const binding of objects.filter((o) => o.kind.endsWith("RoleBinding"))) {
      expect(binding.subjects).toEqual([
        { kind: "ServiceAccount", name: "pulumi-preview", namespace: "pulumi-preview" },
      ]);
    }
  });

  it("refuses, at admission, every request of the preview identity that is not a dry-run", () => {
    const policy = one("ValidatingAdmissionPolicy");
    expect(policy.spec.failurePolicy).toBe("Fail");
    expect(policy.spec.matchConstraints.resourceRules).toEqual([
      { apiGroups: ["*"], apiVersions: ["*"], resources: ["*"], operations: ["CREATE", "UPDATE", "DELETE", "CONNECT"] },
    ]);
    expect(policy.spec.matchConditions).toEqual([
      { name: "preview-identity", expression: `request.userInfo.username == '${PREVIEW_USER}'` },
    ]);
    expect(policy.spec.validations).toEqual([{ expression: "request.dryRun == true", message: expect.any(String) }]);
    expect(one("ValidatingAdmissionPolicyBinding").spec).toEqual({
      policyName: policy.metadata.name,
      validationActions: ["Deny"],
    });
  });
});
