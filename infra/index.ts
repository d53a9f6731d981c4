/**
 * agentport: the self-hosted platform and the agentport API service, from one validated
 * stack config. Composes the components and exports the stack outputs.
 */
import * as pulumi from "@pulumi/pulumi";
import { ResourceGroup } from "@pulumi/azure-native/resources/index.js";
import { ApiService } from "./api/service.js";
import { databaseUrl } from "./api/settings.js";
import { loadConfig } from "./config.js";
import { AwsDataServices } from "./data/aws.js";
import { AzureDataServices } from "./data/azure.js";
import type { ManagedEndpoints } from "./data/types.js";
import { serviceHost } from "./platform/values/defaults.js";
import { PlatformRelease } from "./platform/release.js";
import { Secrets } from "./secrets.js";
import { AzureStorage } from "./storage/azure.js";
import { ObjstoreStorage } from "./storage/objstore.js";
import { S3Storage } from "./storage/s3.js";
import type { StorageOutputs } from "./storage/types.js";
import { platformUrls } from "./urls.js";

const spec = loadConfig();
const secrets = new Secrets("secrets", { spec });

const azure = spec.cloud.provider === "azure";
const group = azure
  ? new ResourceGroup("group", { resourceGroupName: spec.cloud.azure.resourceGroupName, location: spec.cloud.azure.location, tags: spec.cloud.azure.tags })
  : undefined;

const storage: StorageOutputs =
  spec.storage.provider === "S3"
    ? new S3Storage("storage", { cloudb: spec.storage.secret.cloudb, tags: spec.cloud.aws.tags })
    : spec.storage.provider === "AzureStorage"
      ? new AzureStorage("storage", { clouda: spec.storage.secret.clouda, resourceGroupName: group!.name, location: spec.cloud.azure.location, tags: spec.cloud.azure.tags })
      : new ObjstoreStorage("storage", {
          settings: spec.storage.secret.objstore,
          component: spec.objstore,
          accessKey: secrets.objstoreAccessKey,
          secretKey: secrets.objstoreSecretKey,
          rootPassword: secrets.objstoreRootPassword,
          endpoint: `http://${serviceHost(spec.platform.releaseName, spec.platform.namespace, "objstore")}:9000`,
        });

const anyManaged = Object.values(spec.data).includes("managed");
const managed: ManagedEndpoints = !anyManaged
  ? {}
  : azure
    ? new AzureDataServices("data", { spec, secrets, resourceGroupName: group!.name }).endpoints
    : new AwsDataServices("data", { spec, secrets }).endpoints;

const platform = new PlatformRelease("platform", { spec, values: { secrets, storage, managed } });

const api = new ApiService(
  "api",
  {
    spec,
    databaseUrl: databaseUrl(spec, secrets.sqldbPassword, managed.sqldb),
    jwtSecret: secrets.jwtSecret,
    llmApiKey: spec.api.llm.apiKey ? pulumi.secret(spec.api.llm.apiKey) : secrets.boostLlmproxyKey,
    storageEnv: storage.serviceEnv,
  },
  { dependsOn: [platform] },
);

const urls = platformUrls(spec);
export const apiBaseUrl = api.baseUrl;
export const mcpUrl = api.mcpUrl;
export const platformUrl = urls.platform;
export const chatUrl = urls.chat;
export const dashboardsUrl = urls.dashboards;
export const metricsUrl = urls.metrics;
export const platformNamespace = platform.namespace;
export const releaseStatus = platform.status;
export const dashboardsAdminUser = spec.monitoring.dashboards.adminUser;
export const dashboardsAdminPassword = pulumi.secret(secrets.dashboardsAdminPassword);
