/** Creates the managed data services of the stack's cloud, if any service is managed. */
import type * as pulumi from "@pulumi/pulumi";
import type { StackSpec } from "../config.js";
import type { Secrets } from "../secrets.js";
import { managedLogins, type ManagedDataServices } from "./types.js";

export async function createManagedData(
  name: string,
  spec: StackSpec,
  secrets: Secrets,
  resourceGroupName?: pulumi.Input<string>,
): Promise<ManagedDataServices> {
  if (!Object.values(spec.data).includes("managed")) return { endpoints: {}, ready: [] };
  if (spec.cloud.provider === "azure") {
    const { AzureDataServices } = await import("./azure.js");
    if (!resourceGroupName) throw new Error("managed data services on Azure need the resource group");
    return new AzureDataServices(name, {
      logins: managedLogins(spec, secrets),
      network: spec.cloud.azure,
      sizing: spec.data.azure,
      resourceGroupName,
      deployedServers: spec.platform.state?.postgresServers,
    });
  }
  const { AwsDataServices } = await import("./aws.js");
  return new AwsDataServices(name, {
    logins: managedLogins(spec, secrets),
    network: spec.cloud.aws,
    sizing: spec.data.aws,
  });
}
