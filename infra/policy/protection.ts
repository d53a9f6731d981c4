/**
 * Every stateful resource carries `protect: true`, so `pulumi up` refuses to replace or delete it:
 * databases, caches, brokers, buckets, storage accounts and their containers, image repositories, and the platform
 * chart, whose PVC-backed components go with it — on every stack but a throwaway one.
 */
import { violation, type PolicyInput, type Violation } from "./resource.js";

export const STATEFUL_TYPES: ReadonlySet<string> = new Set([
  "aws:rds/instance:Instance",
  "aws:elasticache/replicationGroup:ReplicationGroup",
  "aws:docdb/cluster:Cluster",
  "aws:docdb/clusterInstance:ClusterInstance",
  "aws:mq/broker:Broker",
  "aws:s3/bucket:Bucket",
  "aws:ecr/repository:Repository",
  "azure-native:resources:ResourceGroup",
  "azure-native:storage:StorageAccount",
  "azure-native:storage:BlobContainer",
  "azure-native:dbforpostgresql:Server",
  "azure-native:dbforpostgresql:Database",
  "azure-native:redis:Redis",
  "azure-native:cosmosdb:DatabaseAccount",
  "azure-native:cosmosdb:MongoDBResourceMongoDBDatabase",
  "kubernetes:helm.sh/v3:Release",
  "kubernetes:core/v1:PersistentVolumeClaim",
]);

/**
 * Throwaway stacks: nothing in them is protected, so `pulumi destroy --run-program` removes them as
 * they are (the program reads this list too, infra/protect.ts). Every other stack is held to the rule.
 */
export const THROWAWAY_STACKS: ReadonlySet<string> = new Set(["local"]);

export function unprotectedState(r: PolicyInput): Violation[] {
  return STATEFUL_TYPES.has(r.type) && !r.protect && !THROWAWAY_STACKS.has(r.stack ?? "")
    ? [violation(r, "holds data and must be protected (protect: true)")]
    : [];
}
