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
import { DOCDB_CA_FILE } from "../platform/postrender/docdb-ca.js";
import { hostOf, serviceSecurityGroup } from "./aws-network.js";
import type { Login, ManagedDataServices, ManagedEndpoints, ManagedLogins, PostgresEndpoint } from "./types.js";
import { protectState } from "../protect.js";

/** Amazon MQ for RabbitMQ's largest consumer_timeout (ms). */
export const MQ_CONSUMER_TIMEOUT_MS = 2_147_483_647;

export interface AwsDataServicesArgs {
  /** The services to create, each with the login the platform uses (managedLogins). */
  logins: ManagedLogins;
  /** The cluster's network: region, VPC, private subnets, the CIDRs allowed in, tags (cloud.aws). */
  network: StackSpec["cloud"]["aws"];
  /** Instance classes, storage, versions, multi-AZ and deletion protection (data.aws). */
  sizing: StackSpec["data"]["aws"];
}

/** What every service's resources share: the component as parent, network, sizes, snapshot naming. */
interface Context {
  name: string;
  component: pulumi.ComponentResource;
  network: AwsDataServicesArgs["network"];
  sizing: AwsDataServicesArgs["sizing"];
  /** The final snapshot's settings for a resource id (unique per stack and creation). */
  snapshots(id: string): { skipFinalSnapshot: boolean; finalSnapshotIdentifier: pulumi.Output<string> };
}

// Stateful: a replacement or a delete loses data, so `pulumi up` refuses both until unprotected.
const stateful = (c: Context) => ({ parent: c.component, protect: protectState() });
const common = (c: Context) => ({ region: c.network.region, tags: c.network.tags });

/** RDS PostgreSQL, encrypted, private, TLS forced (except the vector store, which the platform reaches without it). */
function createPostgres(c: Context, kind: "sqldb" | "vectordb", login: Login & { database: string }): PostgresEndpoint {
  const { network: net, sizing: size } = c;
  const id = `${c.name}-${kind}`;
  const parent = { parent: c.component };
  const sg = serviceSecurityGroup(`${id}-sg`, 5432, net, c.component);
  const subnets = new DbSubnetGroup(`${id}-subnets`, { subnetIds: net.subnetIds, ...common(c) }, parent);
  const family = `postgres${size.postgresVersion.split(".")[0]}`;
  // The platform connects to the vector store with sslmode=disable, so TLS cannot be forced there.
  const params = new ParameterGroup(
    `${id}-params`,
    {
      family,
      ...common(c),
      parameters:
        kind === "vectordb" ? [{ name: "rds.force_ssl", value: "0" }] : [{ name: "rds.force_ssl", value: "1" }],
    },
    parent,
  );
  const storageGb = kind === "sqldb" ? size.postgresStorageGb : size.vectorStorageGb;
  const db = new Instance(
    id,
    {
      engine: "postgres",
      engineVersion: size.postgresVersion,
      instanceClass: kind === "sqldb" ? size.postgresInstanceClass : size.vectorInstanceClass,
      allocatedStorage: storageGb,
      maxAllocatedStorage: storageGb * 4,
      storageType: "gp3",
      storageEncrypted: true,
      dbName: login.database,
      username: login.username,
      password: login.password,
      parameterGroupName: params.name,
      dbSubnetGroupName: subnets.name,
      vpcSecurityGroupIds: [sg.id],
      publiclyAccessible: false,
      multiAz: size.multiAz,
      deletionProtection: size.deletionProtection,
      backupRetentionPeriod: 7,
      copyTagsToSnapshot: true,
      autoMinorVersionUpgrade: true,
      // A resize otherwise waits for the maintenance window while the state already says done; a
      // major version (with the new family's parameter group above) needs the explicit permission.
      applyImmediately: size.applyImmediately,
      allowMajorVersionUpgrade: size.allowMajorVersionUpgrade,
      ...common(c),
      ...c.snapshots(id),
    },
    stateful(c),
  );
  return {
    host: db.address,
    port: db.port,
    username: login.username,
    password: login.password,
    database: login.database,
  };
}

/** ElastiCache Redis with TLS in transit, encryption at rest and an auth token. */
function createCache(c: Context, login: { password: pulumi.Output<string> }): NonNullable<ManagedEndpoints["cache"]> {
  const { network: net, sizing: size } = c;
  const id = `${c.name}-cache`;
  const sg = serviceSecurityGroup(`${id}-sg`, 6379, net, c.component);
  const subnets = new CacheSubnetGroup(
    `${id}-subnets`,
    { subnetIds: net.subnetIds, ...common(c) },
    { parent: c.component },
  );
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
      authToken: login.password,
      // Daily snapshots, kept as the stack says (0: none), and one last snapshot if the group is
      // ever deleted where deletion protection is on.
      snapshotRetentionLimit: size.cacheSnapshotRetentionDays,
      ...(size.deletionProtection && { finalSnapshotIdentifier: c.snapshots(id).finalSnapshotIdentifier }),
      subnetGroupName: subnets.name,
      securityGroupIds: [sg.id],
      applyImmediately: size.applyImmediately,
      ...common(c),
    },
    stateful(c),
  );
  return { host: cache.primaryEndpointAddress, port: 6379, username: "default", password: login.password };
}

/**
 * DocumentDB's URI: TLS on, one replica set "rs0", no retryable writes; `tlsCAFile` names where the
 * platform's pods have the Amazon RDS CA (the release's post-renderer mounts it: docdb-ca.ts).
 */
export function docdbUri(
  host: string,
  login: { username: string; password: string; database: string },
  caFile?: string,
): string {
  const ca = caFile ? `&tlsCAFile=${encodeURIComponent(caFile)}` : "";
  return `mongodb://${encodeURIComponent(login.username)}:${encodeURIComponent(login.password)}@${host}:27017/${login.database}?tls=true${ca}&replicaSet=rs0&readPreference=secondaryPreferred&retryWrites=false`;
}

/** DocumentDB with its instances (the platform waits for them: the endpoint answers only once one runs). */
function createDocdb(
  c: Context,
  login: Login & { database: string },
): { endpoint: NonNullable<ManagedEndpoints["docdb"]>; instances: pulumi.Resource[] } {
  const { network: net, sizing: size } = c;
  const id = `${c.name}-docdb`;
  const sg = serviceSecurityGroup(`${id}-sg`, 27017, net, c.component);
  const subnets = new DocdbSubnetGroup(
    `${id}-subnets`,
    { subnetIds: net.subnetIds, ...common(c) },
    { parent: c.component },
  );
  const cluster = new DocdbCluster(
    id,
    {
      engine: "docdb",
      masterUsername: login.username,
      masterPassword: login.password,
      storageEncrypted: true,
      dbSubnetGroupName: subnets.name,
      vpcSecurityGroupIds: [sg.id],
      deletionProtection: size.deletionProtection,
      backupRetentionPeriod: 7,
      applyImmediately: size.applyImmediately,
      allowMajorVersionUpgrade: size.allowMajorVersionUpgrade,
      ...common(c),
      ...c.snapshots(id),
    },
    stateful(c),
  );
  const instances = Array.from(
    { length: size.docdbInstances },
    (_, i) =>
      new ClusterInstance(
        `${id}-${i}`,
        {
          clusterIdentifier: cluster.id,
          instanceClass: size.docdbInstanceClass,
          applyImmediately: size.applyImmediately,
          ...common(c),
        },
        stateful(c),
      ),
  );
  const uri = pulumi
    .all([cluster.endpoint, login.password])
    .apply(([host, pw]) => docdbUri(host, { ...login, password: pw }, DOCDB_CA_FILE));
  return { endpoint: { uri: pulumi.secret(uri) }, instances };
}

/** Amazon MQ for RabbitMQ, with a configuration for long agent runs. */
function createBroker(c: Context, login: Login): NonNullable<ManagedEndpoints["mq"]> {
  const { network: net, sizing: size } = c;
  const id = `${c.name}-mq`;
  const sg = serviceSecurityGroup(`${id}-sg`, 5671, net, c.component);
  // Long agent runs hold a message for a long time: Amazon MQ's default consumer_timeout
  // (30 min) would close their channels. Its maximum, as the in-cluster broker's year cannot be set.
  const config = new MqConfiguration(
    `${id}-config`,
    {
      engineType: "RabbitMQ",
      engineVersion: size.mqEngineVersion,
      name: `${id}-${pulumi.getStack()}`,
      data: `consumer_timeout = ${MQ_CONSUMER_TIMEOUT_MS}\n`,
      ...common(c),
    },
    { parent: c.component },
  );
  // Any change to `users` replaces the broker (the provider's docs: Amazon MQ cannot edit them in
  // place), and the broker is protected: `users` is read only at creation. The platform's password
  // rotates on the broker itself (RabbitMQ's management API), then in the stack (docs/operations.md).
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
      applyImmediately: size.applyImmediately,
      users: [{ username: login.username, password: login.password }],
      logs: { general: true },
      configuration: { id: config.id, revision: config.latestRevision },
      ...common(c),
    },
    { ...stateful(c), ignoreChanges: ["users"] },
  );
  const host = broker.instances.apply((i) => hostOf(i?.[0]?.endpoints?.[0]));
  return { host, port: 5671, username: login.username, password: login.password };
}

export class AwsDataServices extends pulumi.ComponentResource implements ManagedDataServices {
  readonly endpoints: ManagedEndpoints = {};
  readonly ready: pulumi.Resource[] = [];

  constructor(name: string, args: AwsDataServicesArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super("agentport:data:AwsDataServices", name, {}, opts);
    const { logins, sizing } = args;
    // Final snapshot names are unique per stack and per creation: a second stack, or this one
    // recreated, would otherwise collide with the snapshot an earlier delete left behind.
    const snapshotSuffix = new RandomId(`${name}-snapshot-suffix`, { byteLength: 4 }, { parent: this }).hex;
    const c: Context = {
      name,
      component: this,
      network: args.network,
      sizing,
      snapshots: (id) => ({
        skipFinalSnapshot: !sizing.deletionProtection,
        finalSnapshotIdentifier: pulumi.interpolate`${id}-${pulumi.getStack()}-final-${snapshotSuffix}`,
      }),
    };
    if (logins.sqldb) this.endpoints.sqldb = createPostgres(c, "sqldb", logins.sqldb);
    if (logins.vectordb) this.endpoints.vectordb = createPostgres(c, "vectordb", logins.vectordb);
    if (logins.cache) this.endpoints.cache = createCache(c, logins.cache);
    if (logins.docdb) {
      const docdb = createDocdb(c, logins.docdb);
      this.endpoints.docdb = docdb.endpoint;
      this.ready.push(...docdb.instances);
    }
    if (logins.mq) this.endpoints.mq = createBroker(c, logins.mq);
    this.registerOutputs({});
  }
}
