/**
 * Picks the storage variant for storage.provider. Variants load on demand so a stack only
 * loads the cloud SDK it uses (the offline plan stays fast).
 */
import type * as pulumi from "@pulumi/pulumi";
import type { StackSpec } from "../config.js";
import { serviceHost } from "../platform/values/defaults.js";
import type { Secrets } from "../secrets.js";
import { bucketsExist } from "../stack/schema-web.js";
import type { StorageOutputs } from "./types.js";

export async function createStorage(
  name: string,
  spec: StackSpec,
  secrets: Secrets,
  resourceGroupName?: pulumi.Input<string>,
): Promise<StorageOutputs> {
  switch (spec.storage.provider) {
    case "S3": {
      const { S3Storage } = await import("./s3.js");
      return new S3Storage(name, {
        cloudb: spec.storage.secret.cloudb,
        existing: bucketsExist(spec),
        tags: spec.cloud.aws.tags,
        irsa: spec.cloud.aws.irsa && { ...spec.cloud.aws.irsa, namespace: spec.api.namespace },
      });
    }
    case "AzureStorage": {
      const { AzureStorage } = await import("./azure.js");
      if (!resourceGroupName) throw new Error("AzureStorage needs the Azure resource group");
      return new AzureStorage(name, {
        clouda: spec.storage.secret.clouda,
        resourceGroupName,
        location: spec.cloud.azure.location,
        tags: spec.cloud.azure.tags,
      });
    }
    case "Minio": {
      const { ObjstoreStorage } = await import("./objstore.js");
      return new ObjstoreStorage(name, {
        settings: spec.storage.secret.objstore,
        component: spec.objstore,
        accessKey: secrets.objstoreAccessKey,
        secretKey: secrets.objstoreSecretKey,
        rootPassword: secrets.objstoreRootPassword,
        endpoint: `http://${serviceHost(spec.platform.releaseName, spec.platform.namespace, "objstore")}:9000`,
      });
    }
  }
}
