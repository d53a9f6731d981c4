/** The Azure resource group of a cloud-A stack (storage account and managed services live in it). */
import type * as pulumi from "@pulumi/pulumi";
import type { StackSpec } from "./config.js";
import { protectState } from "./protect.js";

export async function createResourceGroup(name: string, spec: StackSpec): Promise<pulumi.Output<string> | undefined> {
  if (spec.cloud.provider !== "azure") return undefined;
  const { ResourceGroup } = await import("@pulumi/azure-native/resources/index.js");
  const a = spec.cloud.azure;
  // Protected: deleting the group deletes everything in it, databases included.
  const group = new ResourceGroup(
    name,
    { resourceGroupName: a.resourceGroupName, location: a.location, tags: a.tags },
    { protect: protectState() },
  );
  if (a.deleteLock) {
    const { ManagementLockAtResourceGroupLevel } = await import("@pulumi/azure-native/authorization/index.js");
    new ManagementLockAtResourceGroupLevel(
      `${name}-delete-lock`,
      {
        resourceGroupName: group.name,
        level: "CanNotDelete",
        lockName: "agentport-do-not-delete",
        notes: "Holds the platform's databases and files. Remove on purpose only.",
      },
      { parent: group },
    );
  }
  return group.name;
}
