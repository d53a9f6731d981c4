import { beforeAll, describe, expect, it } from "vitest";
import {
  expectApiObjectsDeployable,
  expectImageBeforeRelease,
  expectPinnedApiImage,
  expectValidKubernetesObjects,
  at,
  expectNoPlaintextSecrets,
  kubernetesObjects,
  planFor,
  types,
} from "./plan-helpers.js";
import { buildPlatforms, hostPlatform } from "../../infra/api/image.js";
import { evaluate } from "../../infra/policy/policies.js";
import type { PolicyInput } from "../../infra/policy/resource.js";
import { mutated, policyInputs } from "./policy-inputs.js";

let r: Awaited<ReturnType<typeof planFor>>;
beforeAll(async () => {
  // The plan as on an arm64 machine (a laptop's kind cluster), whatever this host is: the build follows the host.
  Object.defineProperty(process, "arch", { value: "arm64", configurable: true });
  r = await planFor("local");
});

describe("plan: local (everything in-cluster)", () => {
  it("renders the same plan as the stored one", async () => {
    await expect(r.text).toMatchFileSnapshot("./plans/local.plan.txt");
  });
  it("declares Kubernetes objects that validate against the official schemas, with no unknown field", async () => {
    await expectValidKubernetesObjects(r.plan);
  });
  it("declares API objects a real cluster and gateway take as meant", () => {
    expectApiObjectsDeployable(r.plan, "local");
  });
  it("builds the image from the working tree and pushes it to kind's local registry, which the nodes pull from without credentials", () => {
    const built = r.plan.resources.find((x) => x.type === "docker-build:index:Image")!;
    expect(built.inputs.context).toEqual({ location: "." });
    expect(built.inputs.tags).toEqual(["localhost:5001/agentport:latest-build"]);
    expect(built.inputs.registries).toEqual([]);
    expect(expectPinnedApiImage(r.plan)).toMatch(/^localhost:5001\/agentport:latest-build@sha256:[0-9a-f]{64}$/);
    expect(kubernetesObjects(r.plan).some((o) => o.name === "api-pull")).toBe(false);
    expectImageBeforeRelease(r.plan);
  });
  it("builds for the host's architecture, as the local cluster runs on it", () => {
    const built = r.plan.resources.find((x) => x.type === "docker-build:index:Image")!;
    expect(built.inputs.platforms).toEqual(["linux/arm64"]);
    expect([hostPlatform("x64"), hostPlatform("arm64")]).toEqual(["linux/amd64", "linux/arm64"]);
    expect(() => hostPlatform("ppc64")).toThrow(/set api\.build\.platforms/);
    // Only here: another stack builds linux/amd64 unless it says otherwise.
    expect(buildPlatforms(undefined, "staging-aws")).toEqual(["linux/amd64"]);
    expect(buildPlatforms(["linux/amd64"], "local")).toEqual(["linux/amd64"]);
  });
  it("protects nothing, so `pulumi destroy --run-program` needs no `pulumi state unprotect`; the policy pack agrees", () => {
    expect(r.plan.resources.some((x) => x.type === "kubernetes:helm.sh/v3:Release")).toBe(true);
    expect([...r.plan.options].filter(([, o]) => o.protect).map(([k]) => k)).toEqual([]);
    expect(evaluate(policyInputs(r.plan))).toEqual([]);
  });
  it("creates no cloud resources and runs every data service in the cluster", () => {
    expect(types(r.plan).filter((t) => t.startsWith("aws:") || t.startsWith("azure-native:"))).toEqual([]);
    for (const svc of ["sqldb", "cache", "docdb", "mq", "vectordb"]) expect(at(r.values, `${svc}.enabled`)).toBe(true);
    for (const ext of ["externalSqldb", "externalCache", "externalDocdb", "externalVectordb", "externalMq"])
      expect(at(r.values, `${ext}.enabled`)).toBe(false);
  });
  it("turns the in-cluster objstore on with path-style S3 for the service", () => {
    expect(at(r.values, "storage.provider")).toBe("Minio");
    expect(at(r.values, "objstore.enabled")).toBe(true);
    expect(at(r.values, "storage.secret.objstore.FORCE_PATH_STYLE")).toBe("true");
    expect(at(r.values, "ultron.env.STORAGE_DISK")).toBe("minio");
  });
  it("points the mailer at the in-cluster SMTP server", () => {
    expect(at(r.values, "smtp.enabled")).toBe(true);
    expect(at(r.values, "mailer.smtp_settings.address")).toBe("platform-smtp.platform.svc.cluster.local");
  });
  it("passes the Helm values as a secret and leaks no secret in plaintext", () => {
    expect(r.valuesSecret).toBe(true);
    expectNoPlaintextSecrets(r.plan);
    expect(r.plan.outputs.dashboardsAdminPassword.secret).toBe(true);
  });
  it("exports the API, MCP and dashboard URLs", () => {
    expect(r.plan.outputs.apiBaseUrl.value).toBe("https://api.platform.localtest.me/v1");
    expect(r.plan.outputs.mcpUrl.value).toBe("https://api.platform.localtest.me/mcp");
    expect(r.plan.outputs.dashboardsUrl.value).toBe("https://dashboards.platform.localtest.me");
    expect(r.plan.outputs.metricsUrl.value).toBe("https://metrics.platform.localtest.me");
  });
  it("passes the policy pack", () => {
    expect(evaluate(policyInputs(r.plan))).toEqual([]);
  });
  /** What the pack reports once one resource of the plan is changed. */
  const refusals = (type: string, name: string, change: (x: PolicyInput) => void) =>
    evaluate(mutated(policyInputs(r.plan), type, name, change));
  it.each([
    [
      "a short objstore access key",
      "storage.secret.objstore.ACCESS_KEY_ID",
      "x".repeat(19),
      /values\.storage\.secret\.objstore\.ACCESS_KEY_ID is 19 characters; the reference suggests at least 20/,
    ],
    [
      "a short objstore secret key",
      "storage.secret.objstore.SECRET_ACCESS_KEY",
      "x".repeat(39),
      /SECRET_ACCESS_KEY is 39 characters; the reference suggests at least 40/,
    ],
    [
      "a placeholder in a secure value, in any case",
      "llm.secretKeys.direct.API_KEY",
      "<Replace_With_Your_API_Key>",
      /values\.llm\.secretKeys\.direct\.API_KEY holds a package placeholder/,
    ],
  ])("refuses %s in the chart's values, naming the release", (_what, path, value, message) => {
    const found = refusals("kubernetes:helm.sh/v3:Release", "platform-chart", (x) => {
      const keys = path.split(".");
      const parent = keys.slice(0, -1).reduce((n: any, k) => n[k], x.props.values);
      parent[keys.at(-1)!] = value;
    });
    expect(found.map((v) => v.message)).toEqual([expect.stringMatching(message)]);
    expect(found[0].message).toMatch(/^platform-chart \(kubernetes:helm\.sh\/v3:Release\)/);
  });
});
