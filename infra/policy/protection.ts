/**
 * Every stateful resource carries `protect: true`, so `pulumi up` refuses to replace or delete it:
 * databases, caches, brokers, buckets, storage accounts and their containers, image repositories, and the platform
 * chart, whose PVC-backed components go with it.
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

export function unprotectedState(r: PolicyInput): Violation[] {
  return STATEFUL_TYPES.has(r.type) && !r.protect
    ? [violation(r, "holds data and must be protected (protect: true)")]
    : [];
}
