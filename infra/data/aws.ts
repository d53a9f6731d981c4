/**
 * Managed data services on AWS, for each service whose `data.<service>` is managed:
 * RDS PostgreSQL (sqldb), RDS PostgreSQL with pgvector (vectordb), ElastiCache Redis with
 * TLS and an auth token (cache), DocumentDB (docdb) and Amazon MQ for RabbitMQ (mq).
 * All encrypted at rest, private, in the cluster's VPC.
 */
import * as pulumi from "@pulumi/pulumi";
import { Cluster as DocdbCluster, ClusterInstance, SubnetGroup as DocdbSubnetGroup } from "@pulumi/aws/docdb/index.js";
import { ReplicationGroup, SubnetGroup as CacheSubnetGroup } from "@pulumi/aws/elasticache/index.js";
import { Broker, Configuration as MqConfiguration } from "@pulumi/aws/mq/index.js";
import { RandomId } from "@pulumi/random/randomId.js";
import { Instance, ParameterGroup, SubnetGroup as DbSubnetGroup } from "@pulumi/aws/rds/index.js";
import type { StackSpec } from "../config.js";
import type { Secrets } from "../secrets.js";
import { hostOf, serviceSecurityGroup } from "./aws-network.js";
import type { ManagedDataServices, ManagedEndpoints, PostgresEndpoint } from "./types.js";
import { managedPostgres } from "./types.js";

/** Amazon MQ for RabbitMQ's largest consumer_timeout (ms). */
export const MQ_CONSUMER_TIMEOUT_MS = 2_147_483_647;

export interface AwsDataServicesArgs {
  /** The validated stack: data modes and sizes, cloud.aws network, service credentials. */
  spec: StackSpec;
  /** Passwords and tokens of the services. */
  secrets: Secrets;
}

export class AwsDataServices extends pulumi.ComponentResource implements ManagedDataServices {
  readonly endpoints: ManagedEndpoints = {};
  readonly ready: pulumi.Resource[] = [];

  constructor(name: string, args: AwsDataServicesArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super("agentport:data:AwsDataServices", name, {}, opts);
    const { spec, secrets } = args;
    const net = spec.cloud.aws;
    const size = spec.data.aws;
    const region = net.region;
    const tags = net.tags;
    const parent = { parent: this };
    // Stateful: a replacement or a delete loses data, so `pulumi up` refuses both until unprotected.
    const stateful = { parent: this, protect: true };
    // Final snapshot names are unique per stack and per creation: a second stack, or this one
    // recreated, would otherwise collide with the snapshot an earlier delete left behind.
    const snapshotSuffix = new RandomId(`${name}-snapshot-suffix`, { byteLength: 4 }, parent).hex;
    const snapshots = (id: string) => ({
      skipFinalSnapshot: !size.deletionProtection,
      finalSnapshotIdentifier: pulumi.interpolate`${id}-${pulumi.getStack()}-final-${snapshotSuffix}`,
    });

    const postgres = (kind: "sqldb" | "vectordb", user: string, password: pulumi.Output<string>, database: string): PostgresEndpoint => {
      const id = `${name}-${kind}`;
      const sg = serviceSecurityGroup(`${id}-sg`, 5432, net, this);
      const subnets = new DbSubnetGroup(`${id}-subnets`, { subnetIds: net.subnetIds, region, tags }, parent);
      const family = `postgres${size.postgresVersion.split(".")[0]}`;
      // The platform connects to the vector store with sslmode=disable, so TLS cannot be forced there.
      const params = new ParameterGroup(
        `${id}-params`,
        { family, region, tags, parameters: kind === "vectordb" ? [{ name: "rds.force_ssl", value: "0" }] : [{ name: "rds.force_ssl", value: "1" }] },
        parent,
      );
      const db = new Instance(
        id,
        {
          engine: "postgres",
          engineVersion: size.postgresVersion,
          instanceClass: kind === "sqldb" ? size.postgresInstanceClass : size.vectorInstanceClass,
          allocatedStorage: kind === "sqldb" ? size.postgresStorageGb : size.vectorStorageGb,
          maxAllocatedStorage: (kind === "sqldb" ? size.postgresStorageGb : size.vectorStorageGb) * 4,
          storageType: "gp3",
          storageEncrypted: true,
          dbName: database,
          username: user,
          password,
          parameterGroupName: params.name,
          dbSubnetGroupName: subnets.name,
          vpcSecurityGroupIds: [sg.id],
          publiclyAccessible: false,
          multiAz: size.multiAz,
          deletionProtection: size.deletionProtection,
          backupRetentionPeriod: 7,
          copyTagsToSnapshot: true,
          autoMinorVersionUpgrade: true,
          region,
          tags,
          ...snapshots(id),
        },
        stateful,
      );
      return { host: db.address, port: db.port, username: user, password, database };
    };

    Object.assign(this.endpoints, managedPostgres(spec, secrets, postgres));

    if (spec.data.cache === "managed") {
      const id = `${name}-cache`;
      const sg = serviceSecurityGroup(`${id}-sg`, 6379, net, this);
      const subnets = new CacheSubnetGroup(`${id}-subnets`, { subnetIds: net.subnetIds, region, tags }, parent);
      const cache = new ReplicationGroup(
        id,
        {
          description: "Platform cache",
          engine: "redis",
          engineVersion: "7.1",
          nodeType: size.cacheNodeType,
          port: 6379,
          numCacheClusters: size.multiAz ? 2 : 1,
          automaticFailoverEnabled: size.multiAz,
          multiAzEnabled: size.multiAz,
          transitEncryptionEnabled: true,
          atRestEncryptionEnabled: true,
          authToken: secrets.cachePassword,
          subnetGroupName: subnets.name,
          securityGroupIds: [sg.id],
          region,
          tags,
        },
        stateful,
      );
      this.endpoints.cache = { host: cache.primaryEndpointAddress, port: 6379, username: "default", password: secrets.cachePassword };
    }

    if (spec.data.docdb === "managed") {
      const id = `${name}-docdb`;
      const sg = serviceSecurityGroup(`${id}-sg`, 27017, net, this);
      const subnets = new DocdbSubnetGroup(`${id}-subnets`, { subnetIds: net.subnetIds, region, tags }, parent);
      const user = spec.docdb.auth.usernames[0];
      const database = spec.docdb.auth.databases[0];
      const password = secrets.docdbPasswords[0];
      const cluster = new DocdbCluster(
        id,
        {
          engine: "docdb",
          masterUsername: user,
          masterPassword: password,
          storageEncrypted: true,
          dbSubnetGroupName: subnets.name,
          vpcSecurityGroupIds: [sg.id],
          deletionProtection: size.deletionProtection,
          backupRetentionPeriod: 7,
          region,
          tags,
          ...snapshots(id),
        },
        stateful,
      );
      // The cluster endpoint answers only once an instance runs: the platform waits for them.
      for (let i = 0; i < size.docdbInstances; i++) {
        this.ready.push(new ClusterInstance(`${id}-${i}`, { clusterIdentifier: cluster.id, instanceClass: size.docdbInstanceClass, region, tags }, stateful));
      }
      // DocumentDB: TLS on, one replica set "rs0", no retryable writes.
      const uri = pulumi
        .all([cluster.endpoint, password])
        .apply(
          ([host, pw]) =>
            `mongodb://${encodeURIComponent(user)}:${encodeURIComponent(pw)}@${host}:27017/${database}?tls=true&replicaSet=rs0&readPreference=secondaryPreferred&retryWrites=false`,
        );
      this.endpoints.docdb = { uri: pulumi.secret(uri) };
    }

    if (spec.data.mq === "managed") {
      const id = `${name}-mq`;
      const sg = serviceSecurityGroup(`${id}-sg`, 5671, net, this);
      // Long agent runs hold a message for a long time: Amazon MQ's default consumer_timeout
      // (30 min) would close their channels. Its maximum, as the in-cluster broker's year cannot be set.
      const config = new MqConfiguration(
        `${id}-config`,
        { engineType: "RabbitMQ", engineVersion: size.mqEngineVersion, name: `${id}-${pulumi.getStack()}`, data: `consumer_timeout = ${MQ_CONSUMER_TIMEOUT_MS}\n`, region, tags },
        parent,
      );
      // Note: any change to `users` replaces the broker (Amazon MQ cannot edit them in place).
      const broker = new Broker(
        id,
        {
          engineType: "RabbitMQ",
          engineVersion: size.mqEngineVersion,
          hostInstanceType: size.mqInstanceType,
          deploymentMode: size.multiAz ? "CLUSTER_MULTI_AZ" : "SINGLE_INSTANCE",
          subnetIds: size.multiAz ? net.subnetIds : net.subnetIds.slice(0, 1),
          securityGroups: [sg.id],
          publiclyAccessible: false,
          autoMinorVersionUpgrade: true,
          users: [{ username: spec.mq.auth.username, password: secrets.mqPassword }],
          logs: { general: true },
          configuration: { id: config.id, revision: config.latestRevision },
          region,
          tags,
        },
        stateful,
      );
      const host = broker.instances.apply((i) => hostOf(i?.[0]?.endpoints?.[0]));
      this.endpoints.mq = { host, port: 5671, username: spec.mq.auth.username, password: secrets.mqPassword };
    }

    this.registerOutputs({});
  }
}
