/**
 * Cloud-A storage: one storage account (TLS 1.2, HTTPS only, blob versioning and soft delete)
 * with the four containers; only the public container allows anonymous reads. The access
 * key is read from the account, never typed into config.
 */
import * as pulumi from "@pulumi/pulumi";
import {
  BlobContainer,
  BlobServiceProperties,
  ManagementPolicy,
  StorageAccount,
  listStorageAccountKeysOutput,
} from "@pulumi/azure-native/storage/index.js";
import type { StackSpec } from "../config.js";
import { storeResourceName, type StorageOutputs } from "./types.js";
import { protectState } from "../protect.js";

export interface AzureStorageArgs {
  /** storage.secret.clouda: account and container names. */
  clouda: StackSpec["storage"]["secret"]["clouda"];
  /** Resource group the account lives in. */
  resourceGroupName: pulumi.Input<string>;
  /** Azure region. */
  location: string;
  /** Tags for every resource. */
  tags: Record<string, string>;
}

/** Days a blob's previous version (or snapshot) stays recoverable. */
export const PREVIOUS_VERSION_DAYS = 30;

const CONTAINERS = ["CONTAINER", "ULTRON_CONTAINER", "EXPORT_PROJECT_CONTAINER", "PUBLIC_CONTAINER"] as const;

export class AzureStorage extends pulumi.ComponentResource implements StorageOutputs {
  readonly provider = "AzureStorage" as const;
  readonly chartSecret: pulumi.Output<Record<string, string>>;
  readonly componentValues: Record<string, unknown>;
  readonly serviceEnv: pulumi.Output<Record<string, string>>;

  constructor(name: string, args: AzureStorageArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super("agentport:storage:AzureStorage", name, {}, opts);
    const { clouda, resourceGroupName } = args;
    const parent = { parent: this };
    const account = createAccount(name, args, this);
    const blobService = createBlobService(name, account, resourceGroupName, this);
    createContainers(name, account, args, this);
    createLifecyclePolicy(name, account, resourceGroupName, blobService, this);
    const accountKey = clouda.STORAGE_ACCESS_KEY
      ? pulumi.secret(clouda.STORAGE_ACCESS_KEY)
      : pulumi.secret(
          listStorageAccountKeysOutput({ resourceGroupName, accountName: account.name }, parent).apply(
            (r) => r.keys[0].value,
          ),
        );

    this.chartSecret = pulumi.secret(
      pulumi.all([account.name, accountKey]).apply(([accountName, key]): Record<string, string> => ({
        STORAGE_ACCOUNT_NAME: accountName,
        STORAGE_ACCESS_KEY: key,
        CONTAINER: clouda.CONTAINER ?? "",
        ULTRON_CONTAINER: clouda.ULTRON_CONTAINER ?? "",
        EXPORT_PROJECT_CONTAINER: clouda.EXPORT_PROJECT_CONTAINER ?? "",
        PUBLIC_CONTAINER: clouda.PUBLIC_CONTAINER ?? "",
      })),
    );
    this.componentValues = { enabled: false };
    this.serviceEnv = pulumi.secret(
      pulumi.all([account.name, accountKey]).apply(([accountName, key]): Record<string, string> => ({
        BLOB_STORE: "azure",
        AZURE_STORAGE_ACCOUNT: accountName,
        AZURE_STORAGE_KEY: key,
        AZURE_STORAGE_CONNECTION_STRING: `DefaultEndpointsProtocol=https;AccountName=${accountName};AccountKey=${key};EndpointSuffix=core.windows.net`,
        AZURE_CONTAINER: clouda.CONTAINER ?? "",
      })),
    );
    this.registerOutputs({ chartSecret: this.chartSecret, serviceEnv: this.serviceEnv });
  }
}

/** The account: TLS 1.2, HTTPS only, zone-redundant; protected. */
function createAccount(name: string, args: AzureStorageArgs, owner: pulumi.Resource): StorageAccount {
  const { clouda, resourceGroupName, location, tags } = args;
  return new StorageAccount(
    `${name}-account`,
    {
      accountName: clouda.STORAGE_ACCOUNT_NAME,
      resourceGroupName,
      location,
      kind: "StorageV2",
      sku: { name: "Standard_ZRS" },
      enableHttpsTrafficOnly: true,
      minimumTlsVersion: "TLS1_2",
      // Needed for the public container only; every other container stays private. The public
      // container is read anonymously by browsers, so the account keeps public network access,
      // and the platform's chart authenticates with the account key (storage.secret.clouda's
      // STORAGE_ACCESS_KEY), so shared-key access stays on too (docs/security.md, "What stays open").
      allowBlobPublicAccess: true,
      publicNetworkAccess: "Enabled",
      allowSharedKeyAccess: true,
      allowCrossTenantReplication: false,
      encryption: { keySource: "Microsoft.Storage", services: { blob: { enabled: true, keyType: "Account" } } },
      tags,
    },
    // Protected: the platform's files live here; a replace or delete is refused until unprotected.
    { parent: owner, protect: protectState() },
  );
}

/** Blob versioning and soft delete of blobs and containers. */
function createBlobService(
  name: string,
  account: StorageAccount,
  resourceGroupName: pulumi.Input<string>,
  owner: pulumi.Resource,
): BlobServiceProperties {
  return new BlobServiceProperties(
    `${name}-blob-service`,
    {
      accountName: account.name,
      resourceGroupName,
      blobServicesName: "default",
      isVersioningEnabled: true,
      deleteRetentionPolicy: { enabled: true, days: 14 },
      containerDeleteRetentionPolicy: { enabled: true, days: 14 },
    },
    { parent: owner },
  );
}

/** The four containers, private but the public one; protected like the account. */
function createContainers(name: string, account: StorageAccount, args: AzureStorageArgs, owner: pulumi.Resource): void {
  for (const key of CONTAINERS) {
    new BlobContainer(
      storeResourceName(name, key),
      {
        accountName: account.name,
        resourceGroupName: args.resourceGroupName,
        containerName: args.clouda[key],
        publicAccess: key === "PUBLIC_CONTAINER" ? "Blob" : "None",
      },
      // Protected like the account: deleting a container deletes every blob in it.
      { parent: owner, protect: protectState() },
    );
  }
}

/**
 * Versioning keeps every overwritten or deleted blob as a previous version, billed until it is
 * deleted: lifecycle management deletes versions and snapshots once they are PREVIOUS_VERSION_DAYS
 * old (the S3 buckets' noncurrent-version rule).
 */
function createLifecyclePolicy(
  name: string,
  account: StorageAccount,
  resourceGroupName: pulumi.Input<string>,
  blobService: BlobServiceProperties,
  owner: pulumi.Resource,
): void {
  new ManagementPolicy(
    `${name}-lifecycle`,
    {
      accountName: account.name,
      resourceGroupName,
      managementPolicyName: "default",
      policy: {
        rules: [
          {
            name: "expire-previous-versions",
            enabled: true,
            type: "Lifecycle",
            definition: {
              filters: { blobTypes: ["blockBlob"] },
              actions: {
                version: { delete: { daysAfterCreationGreaterThan: PREVIOUS_VERSION_DAYS } },
                snapshot: { delete: { daysAfterCreationGreaterThan: PREVIOUS_VERSION_DAYS } },
              },
            },
          },
        ],
      },
    },
    { parent: owner, dependsOn: [blobService] },
  );
}
