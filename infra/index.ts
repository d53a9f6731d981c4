/**
 * agentport: the self-hosted platform and the agentport API service, from one validated
 * stack config. Composes the components and exports the stack outputs.
 */
import * as pulumi from "@pulumi/pulumi";
import { awsRdsCaBundle } from "./api/ca-bundle.js";
import { apiImage } from "./api/image.js";
import { ApiService } from "./api/service.js";
import { apiDbLogins } from "./api/db-passwords.js";
import { databaseUrl, redisUrl, serviceSettings } from "./api/settings.js";
import { checkApiCertificate } from "./api/certificate-check.js";
import { createResourceGroup } from "./azure-group.js";
import { loadConfig } from "./config.js";
import { createManagedData } from "./data/index.js";
import { DOCDB_CA_POSTRENDERER } from "./platform/postrender/docdb-ca.js";
import { PlatformRelease } from "./platform/release.js";
import { buildPlatformValues } from "./platform/values/index.js";
import { Secrets } from "./secrets.js";
import { createStorage } from "./storage/index.js";
import { platformUrls } from "./urls.js";

const spec = loadConfig();
const secrets = new Secrets("secrets", { spec });
const resourceGroup = await createResourceGroup("group", spec);
const storage = await createStorage("storage", spec, secrets, resourceGroup);
const data = await createManagedData("data", spec, secrets, resourceGroup);
const managed = data.endpoints;

// Built and pushed before the release (which waits for it), so a failed build stops the `up`
// before anything in the cluster changes.
const image = apiImage("api-image", spec);
// The release starts the platform's pods: its data services must be usable first.
const platform = new PlatformRelease(
  "platform",
  {
    chart: spec.platform,
    values: buildPlatformValues({ spec, secrets, storage, managed }),
    // DocumentDB chains to the Amazon RDS CA, which no public trust store holds: the release
    // itself mounts it in the platform's pods, so they verify TLS from their first start.
    postrender: spec.data.docdb === "managed" && spec.cloud.provider === "aws" ? DOCDB_CA_POSTRENDERER : undefined,
  },
  { dependsOn: [...data.ready, ...(image.built ? [image.built] : [])] },
);
// On a managed sqldb the API gets roles of its own (created by a Job with the master's URL): two
// logins, so a password rotates without a failed request (db-logins.ts).
const apiDb = managed.sqldb ? apiDbLogins(spec.api.dbPasswordGeneration) : undefined;
const settings = serviceSettings(spec);
const api = new ApiService(
  "api",
  {
    api: spec.api,
    settings,
    gatewayNamespace: spec.platform.namespace,
    databaseUrl: databaseUrl(
      spec,
      secrets.sqldbPassword,
      managed.sqldb,
      apiDb && { user: apiDb.active, password: apiDb.passwords[apiDb.active] },
    ),
    dbRole: apiDb && {
      adminUrl: databaseUrl(spec, secrets.sqldbPassword, managed.sqldb),
      logins: pulumi.secret(pulumi.output(apiDb.passwords as Record<string, pulumi.Output<string>>)),
    },
    jwtSecret: secrets.jwtSecret,
    llmApiKey: spec.api.llm.apiKey ? pulumi.secret(spec.api.llm.apiKey) : secrets.boostLlmproxyKey,
    storageEnv: storage.serviceEnv,
    redisUrl: redisUrl(spec, managed.cache),
    cloudRoleArn: storage.serviceRoleArn,
    image: image.ref,
    jobImage: image.jobRef,
    pull: image.pull,
    // The database URL verifies RDS's certificate against this bundle (Azure's chain is in Node's roots).
    caBundle: managed.sqldb && spec.cloud.provider === "aws" ? awsRdsCaBundle() : undefined,
    dashboardsNamespace: spec.monitoring.enabled ? spec.platform.namespace : undefined,
  },
  { dependsOn: [platform] },
);

const urls = platformUrls(spec);
export const apiBaseUrl = api.baseUrl;
export const mcpUrl = api.mcpUrl;
export const apiImageRef = image.ref;
/** AWS: the load balancer's certificate, checked to cover the API host. */
export const apiCertificate = checkApiCertificate(spec, settings.host);
/** Where no cert-manager issues it: the API's certificate, copied from api.tlsSourceNamespace and checked. */
export const apiTlsSecrets = api.tlsSecrets;
export const platformUrl = urls.platform;
export const chatUrl = urls.chat;
export const dashboardsUrl = urls.dashboards;
export const metricsUrl = urls.metrics;
export const platformNamespace = platform.namespace;
export const releaseStatus = platform.status;
export const dashboardsAdminUser = spec.monitoring.dashboards.adminUser;
export const dashboardsAdminPassword = pulumi.secret(secrets.dashboardsAdminPassword);
