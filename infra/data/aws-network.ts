/**
 * Network placement of the managed services on AWS: a security group per service that
 * admits only the cluster's security groups and private CIDRs on the service port.
 * Nothing is publicly accessible.
 */
import type * as pulumi from "@pulumi/pulumi";
import { SecurityGroup } from "@pulumi/aws/ec2/index.js";
import type { StackSpec } from "../config.js";

export function serviceSecurityGroup(
  name: string,
  port: number,
  net: StackSpec["cloud"]["aws"],
  parent: pulumi.Resource,
): SecurityGroup {
  return new SecurityGroup(
    name,
    {
      vpcId: net.vpcId,
      region: net.region,
      description: `Port ${port} from the cluster only`,
      ingress: [
        ...(net.clientSecurityGroupIds.length
          ? [{ protocol: "tcp", fromPort: port, toPort: port, securityGroups: net.clientSecurityGroupIds }]
          : []),
        ...(net.clientCidrs.length
          ? [{ protocol: "tcp", fromPort: port, toPort: port, cidrBlocks: net.clientCidrs }]
          : []),
      ],
      tags: net.tags,
    },
    { parent },
  );
}

/** The bare host of an endpoint such as `amqps://b-1234.mq.region.amazonaws.com:5671`. */
export function hostOf(endpoint: string | undefined): string {
  if (!endpoint) return "";
  return endpoint.replace(/^[a-z+]+:\/\//, "").replace(/[:/].*$/, "");
}
