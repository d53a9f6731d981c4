/** The Azure resource group of a cloud-A stack (storage account and managed services live in it). */
import type * as pulumi from "@pulumi/pulumi";
import type { StackSpec } from "./config.js";

export async function createResourceGroup(name: string, spec: StackSpec): Promise<pulumi.Output<string> | undefined> {
  if (spec.cloud.provider !== "azure") return undefined;
  const { ResourceGroup } = await import("@pulumi/azure-native/resources/index.js");
  const a = spec.cloud.azure;
  // Protected: deleting the group deletes everything in it, databases included.
  return new ResourceGroup(name, { resourceGroupName: a.resourceGroupName, location: a.location, tags: a.tags }, { protect: true }).name;
}
