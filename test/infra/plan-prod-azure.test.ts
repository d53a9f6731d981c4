import { beforeAll, describe, expect, it } from "vitest";
import {
  expectApiOwnDbRole,
  apiDatabaseUrl,
  expectProtected,
  named,
  optionsOf,
  expectPinnedApiImage,
  kubernetesObjects,
  expectApiObjectsDeployable,
  expectValidKubernetesObjects,
  at,
  expectNoPlaintextSecrets,
  planFor,
  types,
} from "./plan-helpers.js";
import { evaluate } from "../../infra/policy/policies.js";
import type { PolicyInput } from "../../infra/policy/resource.js";
import { mutated, policyInputs } from "./policy-inputs.js";

let r: Awaited<ReturnType<typeof planFor>>;
beforeAll(async () => {
  r = await planFor("prod-azure");
});

describe("plan: prod-azure (storage account + Azure managed services)", () => {
  it("renders the same plan as the stored one", async () => {
    await expect(r.text).toMatchFileSnapshot("./plans/prod-azure.plan.txt");
  });
  it("declares Kubernetes objects that validate against the official schemas, with no unknown field", async () => {
    await expectValidKubernetesObjects(r.plan);
  });
  it("declares API objects a real cluster and gateway take as meant", () => {
    expectApiObjectsDeployable(r.plan, "prod-azure");
  });
  it("connects the API as a role of its own, created by a Job before the Deployment (never as the master user)", () => {
    expectApiOwnDbRole(r.plan);
  });
  it("gets the API host a certificate from the platform's cert-manager issuer", () => {
    const ingress = kubernetesObjects(r.plan).find((o) => o.name === "api-ingress")!.obj;
    expect(ingress.metadata.annotations["cert-manager.io/cluster-issuer"]).toBe("letsencrypt-prod");
    expect(ingress.spec.tls).toEqual([{ secretName: "agentport-api-tls", hosts: [ingress.spec.rules[0].host] }]);
  });
  it("locks the resource group against deletion (CanNotDelete), as prod asks", () => {
    const lock = r.plan.resources.find(
      (x) => x.type === "azure-native:authorization:ManagementLockAtResourceGroupLevel",
    )!;
    expect(lock.inputs).toMatchObject({ level: "CanNotDelete", resourceGroupName: "rg-agentport-prod" });
  });
  it("protects every stateful resource, the resource group included", () => {
    expectProtected(r.plan, [
      "azure-native:resources:ResourceGroup",
      "azure-native:storage:StorageAccount",
      "azure-native:dbforpostgresql:Server",
      "azure-native:dbforpostgresql:Database",
      "azure-native:redis:Redis",
      "azure-native:cosmosdb:DatabaseAccount",
      "azure-native:cosmosdb:MongoDBResourceMongoDBDatabase",
    ]);
  });
  it("gives each private endpoint a DNS zone group, so the service name resolves to it from the cluster", () => {
    const endpoints = named(r.plan, "azure-native:network:PrivateEndpoint");
    expect(endpoints.sort()).toEqual(["data-cache-pe", "data-docdb-pe"]);
    const groups = r.plan.resources.filter((x) => x.type === "azure-native:network:PrivateDnsZoneGroup");
    expect(groups.map((g) => g.inputs.privateEndpointName).sort()).toEqual(["data-cache-pe", "data-docdb-pe"]);
    const zones = r.plan.resources
      .filter((x) => x.type === "azure-native:privatedns:PrivateZone")
      .map((z) => z.inputs.privateZoneName)
      .sort();
    expect(zones).toEqual(["privatelink.mongo.cosmos.azure.com", "privatelink.redis.cache.windows.net"]);
    const links = r.plan.resources.filter((x) => x.type === "azure-native:privatedns:VirtualNetworkLink");
    expect(links.map((l) => (l.inputs.virtualNetwork as { id: string }).id)).toEqual(
      Array(2).fill(expect.stringMatching(/\/virtualNetworks\/vnet-prod$/)),
    );
  });
  it("lets Azure grow PostgreSQL disks (autoGrow) and sends each update the deployed server's size, read from it", () => {
    for (const name of ["data-sqldb", "data-vectordb"]) {
      const server = r.plan.resources.find((x) => x.type === "azure-native:dbforpostgresql:Server" && x.name === name)!;
      expect(server.inputs.storage).toMatchObject({ autoGrow: "Enabled", storageSizeGB: 64 });
      expect(optionsOf(r.plan, server.type, name).ignoreChanges).toEqual([]);
    }
    expect(r.plan.invokes.filter((c) => c.token === "azure-native:dbforpostgresql:getServer")).toEqual([
      {
        token: "azure-native:dbforpostgresql:getServer",
        inputs: expect.objectContaining({ serverName: "data-sqldb4c1e9a2" }),
      },
      {
        token: "azure-native:dbforpostgresql:getServer",
        inputs: expect.objectContaining({ serverName: "data-vectordb7f03b6d" }),
      },
    ]);
  });
  it("runs PostgreSQL zone-redundant with geo-redundant backups kept as long as the stack says", () => {
    for (const server of r.plan.resources.filter((x) => x.type === "azure-native:dbforpostgresql:Server")) {
      expect(server.inputs.highAvailability).toMatchObject({ mode: "ZoneRedundant" });
      expect(server.inputs.backup).toEqual({ backupRetentionDays: 35, geoRedundantBackup: "Enabled" });
    }
  });
  it("backs Cosmos DB up continuously (point-in-time restore over 30 days), as prod asks", () => {
    const account = r.plan.resources.find((x) => x.type === "azure-native:cosmosdb:DatabaseAccount")!;
    expect(account.inputs.backupPolicy).toEqual({
      type: "Continuous",
      continuousModeProperties: { tier: "Continuous30Days" },
    });
  });
  it("keeps open on the storage account only what its consumers need (docs/security.md: what stays open, and why)", () => {
    const account = r.plan.resources.find((x) => x.type === "azure-native:storage:StorageAccount")!;
    // Anonymous reads of the public container from browsers; the chart's account key.
    expect(account.inputs).toMatchObject({
      publicNetworkAccess: "Enabled",
      allowBlobPublicAccess: true,
      allowSharedKeyAccess: true,
    });
    expect(account.inputs).toMatchObject({
      allowCrossTenantReplication: false,
      minimumTlsVersion: "TLS1_2",
      enableHttpsTrafficOnly: true,
    });
  });
  it("protects the blob containers and deletes previous blob versions after 30 days", () => {
    expectProtected(r.plan, ["azure-native:storage:BlobContainer"]);
    const policy = r.plan.resources.find((x) => x.type === "azure-native:storage:ManagementPolicy")!;
    expect(policy.inputs).toMatchObject({ managementPolicyName: "default", accountName: "exampleagentsprod" });
    const [rule] = (policy.inputs.policy as { rules: Array<Record<string, any>> }).rules;
    expect(rule.definition.actions).toEqual({
      version: { delete: { daysAfterCreationGreaterThan: 30 } },
      snapshot: { delete: { daysAfterCreationGreaterThan: 30 } },
    });
    expect(optionsOf(r.plan, policy.type, policy.name).dependsOn).toEqual(["storage-blob-service"]);
  });
  it("writes each PostgreSQL server one change at a time (parallel writes fail with ServerIsBusy)", () => {
    const dep = (name: string, type = "azure-native:dbforpostgresql:Configuration") =>
      optionsOf(r.plan, type, name).dependsOn;
    expect(dep("data-vectordb-extensions")).toEqual(["data-vectordb"]);
    expect(dep("data-vectordb-tls")).toEqual(["data-vectordb-extensions"]);
    expect(dep("data-vectordb-db", "azure-native:dbforpostgresql:Database")).toEqual(["data-vectordb-tls"]);
    expect(dep("data-sqldb-db", "azure-native:dbforpostgresql:Database")).toEqual(["data-sqldb"]);
  });
  it("starts the platform release only once databases, extensions and private endpoints with DNS are there", () => {
    expect(optionsOf(r.plan, "kubernetes:helm.sh/v3:Release", "platform-chart").dependsOn.sort()).toEqual(
      [
        "api-image",
        "data-cache-dns",
        "data-cache-pe",
        "data-docdb-db",
        "data-docdb-dns",
        "data-docdb-pe",
        "data-sqldb-db",
        "data-vectordb-db",
        "data-vectordb-extensions",
        "data-vectordb-tls",
      ].sort(),
    );
  });
  it("builds and pushes the API image to the stack's registry, and pulls it with a pull-only token, never the push one", () => {
    const built = r.plan.resources.find((x) => x.type === "docker-build:index:Image")!;
    expect((built.inputs.tags as string[])[0]).toMatch(/^agentportprod\.azurecr\.io\/agentport:/);
    expect(JSON.stringify(built.inputs.registries)).toContain("agentport-push");
    expect(expectPinnedApiImage(r.plan)).toContain("@sha256:");
    const pull = kubernetesObjects(r.plan).find((o) => o.name === "api-pull")!.obj;
    expect(pull.type).toBe("kubernetes.io/dockerconfigjson");
    const auths = JSON.parse(pull.stringData[".dockerconfigjson"]).auths;
    expect(auths["agentportprod.azurecr.io"].username).toBe("agentport-pull");
    expect(auths["agentportprod.azurecr.io"].password).toBe("secret-standin:agentport:api.registry.pull.password");
    const deployment = kubernetesObjects(r.plan).find((o) => o.obj.kind === "Deployment")!.obj;
    expect(deployment.spec.template.spec.imagePullSecrets).toEqual([{ name: "api-pull" }]);
  });
  it("verifies Azure PostgreSQL's certificate with Node's own roots (no bundle to mount)", () => {
    expect(apiDatabaseUrl(r.plan)).toMatch(/\?sslmode=verify-full$/);
  });
  it("creates the storage account with four containers, only the public one readable", () => {
    const containers = r.plan.resources.filter((x) => x.type === "azure-native:storage:BlobContainer");
    expect(containers).toHaveLength(4);
    expect(containers.filter((c) => c.inputs.publicAccess === "Blob").map((c) => c.inputs.containerName)).toEqual([
      "public",
    ]);
    expect(at(r.values, "storage.provider")).toBe("AzureStorage");
    expect(at(r.values, "document_converter.env.USE_CLOUDA")).toBe("true");
    expect(at(r.values, "ultron.env.STORAGE_DISK")).toBe("azure");
  });
  it("uses PostgreSQL flexible servers, Redis and Cosmos DB privately; RabbitMQ stays in-cluster", () => {
    const t = types(r.plan);
    expect(t.filter((x) => x === "azure-native:dbforpostgresql:Server")).toHaveLength(2);
    expect(t).toContain("azure-native:redis:Redis");
    expect(t).toContain("azure-native:cosmosdb:DatabaseAccount");
    for (const res of r.plan.resources.filter((x) =>
      ["azure-native:redis:Redis", "azure-native:cosmosdb:DatabaseAccount"].includes(x.type),
    )) {
      expect(res.inputs.publicNetworkAccess).toBe("Disabled");
    }
    expect(at(r.values, "mq.enabled")).toBe(true);
    expect(at(r.values, "externalMq.enabled")).toBe(false);
    expect(at(r.values, "externalDocdb.enabled")).toBe(true);
  });
  it("passes the Helm values as a secret and leaks no secret in plaintext", () => {
    expect(r.valuesSecret).toBe(true);
    expectNoPlaintextSecrets(r.plan);
  });
  it("passes the policy pack", () => {
    expect(evaluate(policyInputs(r.plan))).toEqual([]);
  });
  /** What the pack reports once one resource of the plan is changed. */
  const refusals = (type: string, name: string, change: (x: PolicyInput) => void) =>
    evaluate(mutated(policyInputs(r.plan), type, name, change));
  it.each([
    [
      "an unprotected PostgreSQL server",
      "azure-native:dbforpostgresql:Server",
      "data-sqldb",
      (x: PolicyInput) => (x.protect = false),
      /must be protected/,
    ],
    [
      "an unprotected storage account",
      "azure-native:storage:StorageAccount",
      "storage-account",
      (x: PolicyInput) => (x.protect = false),
      /must be protected/,
    ],
    [
      "an unprotected blob container",
      "azure-native:storage:BlobContainer",
      "storage-container",
      (x: PolicyInput) => (x.protect = false),
      /must be protected/,
    ],
    [
      "a private container made public",
      "azure-native:storage:BlobContainer",
      "storage-container",
      (x: PolicyInput) => (x.props.publicAccess = "Container"),
      /publicAccess Container makes it public/,
    ],
    [
      "an account open to anonymous reads without its public container",
      "azure-native:storage:BlobContainer",
      "storage-public-container",
      (x: PolicyInput) => (x.props.publicAccess = "None"),
      /storage-account .*allowBlobPublicAccess must be false/,
    ],
    [
      "TLS turned off on the main PostgreSQL",
      "azure-native:dbforpostgresql:Configuration",
      "data-vectordb-tls",
      (x: PolicyInput) => (x.name = "data-sqldb-tls"),
      /require_secure_transport is off/,
    ],
    [
      "Redis with its non-TLS port",
      "azure-native:redis:Redis",
      "data-cache",
      (x: PolicyInput) => (x.props.enableNonSslPort = true),
      /enableNonSslPort must be false/,
    ],
    [
      "a storage account taking plain HTTP",
      "azure-native:storage:StorageAccount",
      "storage-account",
      (x: PolicyInput) => (x.props.enableHttpsTrafficOnly = false),
      /enableHttpsTrafficOnly must be true/,
    ],
  ])("refuses %s, naming the resource", (_what, type, name, change, message) => {
    const found = refusals(type, name, change);
    expect(found).toHaveLength(1);
    expect(found[0].message).toMatch(message);
  });
});
