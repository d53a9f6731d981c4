/**
 * Managed data services on Azure: PostgreSQL flexible servers (sqldb; vectordb with the
 * vector extension), Azure Cache for Redis and Cosmos DB for MongoDB. PostgreSQL joins the
 * delegated subnet; Redis and Cosmos DB take private endpoints; public access is disabled.
 * Azure has no managed RabbitMQ: validation refuses `data.mq: managed` there.
 */
import * as pulumi from "@pulumi/pulumi";
import {
  DatabaseAccount,
  MongoDBResourceMongoDBDatabase,
  listDatabaseAccountConnectionStringsOutput,
} from "@pulumi/azure-native/cosmosdb/index.js";
import { Configuration, Database, Server, getServerOutput } from "@pulumi/azure-native/dbforpostgresql/index.js";
import { PrivateDnsZoneGroup, PrivateEndpoint } from "@pulumi/azure-native/network/index.js";
import { PrivateZone, VirtualNetworkLink } from "@pulumi/azure-native/privatedns/index.js";
import { Redis, listRedisKeysOutput } from "@pulumi/azure-native/redis/index.js";
import type { StackSpec } from "../config.js";
import type { Login, ManagedDataServices, ManagedEndpoints, ManagedLogins, PostgresEndpoint } from "./types.js";
import { protectState } from "../protect.js";

export interface AzureDataServicesArgs {
  /** The services to create, each with the login the platform uses (managedLogins); no mq on Azure. */
  logins: ManagedLogins;
  /** Location, subnets, private DNS zones and tags (cloud.azure). */
  network: StackSpec["cloud"]["azure"];
  /** SKUs, versions and storage (data.azure). */
  sizing: StackSpec["data"]["azure"];
  /** Resource group of the deployment. */
  resourceGroupName: pulumi.Input<string>;
  /** The deployed PostgreSQL servers' names (platform.state.postgresServers); none on a first create. */
  deployedServers?: { sqldb?: string; vectordb?: string };
}

export class AzureDataServices extends pulumi.ComponentResource implements ManagedDataServices {
  readonly endpoints: ManagedEndpoints = {};
  /** What the platform release must wait for: databases, extension settings, private endpoints with their DNS. */
  readonly ready: pulumi.Resource[] = [];

  constructor(name: string, args: AzureDataServicesArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super("agentport:data:AzureDataServices", name, {}, opts);
    const { logins } = args;
    const scope: Scope = {
      name,
      resourceGroupName: args.resourceGroupName,
      net: args.network,
      size: args.sizing,
      parent: this,
      zones: new Map(),
      ready: this.ready,
      deployedServers: args.deployedServers ?? {},
    };
    if (logins.sqldb) this.endpoints.sqldb = createPostgres(scope, "sqldb", logins.sqldb);
    if (logins.vectordb) this.endpoints.vectordb = createPostgres(scope, "vectordb", logins.vectordb);
    if (logins.cache) this.endpoints.cache = createCache(scope);
    if (logins.docdb) this.endpoints.docdb = createDocdb(scope, logins.docdb.database);
    this.registerOutputs({});
  }
}

/** What every part shares: names, placement, sizing, the parent, the private DNS zones made so far and the ready list. */
interface Scope {
  name: string;
  resourceGroupName: pulumi.Input<string>;
  net: StackSpec["cloud"]["azure"];
  size: StackSpec["data"]["azure"];
  parent: pulumi.Resource;
  zones: Map<string, PrivateZone>;
  ready: pulumi.Resource[];
  deployedServers: NonNullable<AzureDataServicesArgs["deployedServers"]>;
}

/** Stateful: a replacement or a delete loses data, so `pulumi up` refuses both until unprotected. */
const stateful = (scope: Scope) => ({ parent: scope.parent, protect: protectState() });

/**
 * A private endpoint, and the DNS record that makes the service's own name resolve to it:
 * with public access disabled nothing connects through the public name.
 */
function createPrivateEndpoint(
  scope: Scope,
  id: string,
  target: pulumi.Input<string>,
  group: string,
  zone: { name: string; id?: string },
): pulumi.Resource[] {
  const { resourceGroupName, net } = scope;
  const parent = { parent: scope.parent };
  const endpoint = new PrivateEndpoint(
    `${id}-pe`,
    {
      resourceGroupName,
      location: net.location,
      subnet: { id: net.subnetId },
      privateLinkServiceConnections: [{ name: `${id}-link`, privateLinkServiceId: target, groupIds: [group] }],
      tags: net.tags,
    },
    parent,
  );
  const zoneId = zone.id ?? privateZone(scope, zone.name).id;
  const dns = new PrivateDnsZoneGroup(
    `${id}-dns`,
    {
      resourceGroupName,
      privateEndpointName: endpoint.name,
      privateDnsZoneConfigs: [{ name: zone.name.replaceAll(".", "-"), privateDnsZoneId: zoneId }],
    },
    parent,
  );
  return [endpoint, dns];
}

/** A private DNS zone linked to the endpoints' VNet, made once per zone name. */
function privateZone(scope: Scope, zoneName: string): PrivateZone {
  const { name, resourceGroupName, net, zones } = scope;
  const existing = zones.get(zoneName);
  if (existing) return existing;
  const parent = { parent: scope.parent };
  // The VNet of the private-endpoint subnet (its id is `<vnet id>/subnets/<name>`).
  const vnetId = (net.subnetId ?? "").replace(/\/subnets\/[^/]+$/, "");
  const zone = new PrivateZone(
    `${name}-${zoneName}`,
    { resourceGroupName, location: "global", privateZoneName: zoneName, tags: net.tags },
    parent,
  );
  new VirtualNetworkLink(
    `${name}-${zoneName}-link`,
    {
      resourceGroupName,
      location: "global",
      privateZoneName: zone.name,
      virtualNetwork: { id: vnetId },
      registrationEnabled: false,
      tags: net.tags,
    },
    parent,
  );
  zones.set(zoneName, zone);
  return zone;
}

function createPostgres(
  scope: Scope,
  kind: "sqldb" | "vectordb",
  { username: user, password, database }: Login & { database: string },
): PostgresEndpoint {
  const { resourceGroupName, net, size } = scope;
  const id = `${scope.name}-${kind}`;
  const server = new Server(
    id,
    {
      resourceGroupName,
      location: net.location,
      version: size.postgresVersion,
      administratorLogin: user,
      administratorLoginPassword: password,
      sku: { name: size.postgresSku, tier: size.postgresTier },
      storage: { storageSizeGB: diskSize(scope, kind), autoGrow: "Enabled" },
      highAvailability: { mode: size.postgresHighAvailability },
      backup: {
        backupRetentionDays: size.postgresBackupRetentionDays,
        geoRedundantBackup: size.postgresGeoRedundantBackup ? "Enabled" : "Disabled",
      },
      network: {
        delegatedSubnetResourceId: net.postgresSubnetId,
        privateDnsZoneArmResourceId: net.postgresPrivateDnsZoneId,
        publicNetworkAccess: "Disabled",
      },
      authConfig: { passwordAuth: "Enabled" },
      tags: net.tags,
    },
    stateful(scope),
  );
  createPostgresSettings(scope, id, kind, server, database);
  return { host: server.fullyQualifiedDomainName, port: 5432, username: user, password, database };
}

/**
 * The disk size a server is sent: the stack's, or the size Azure grew the deployed server to
 * (autoGrow), whichever is larger. azure-native updates a server with a PUT of all its inputs
 * (docs/operations.md, "Grown disks"), and Azure refuses a size below the disk's, so every update
 * sends at least the live size: read from the server (a control-plane GET, which `Reader` allows)
 * when the stack names it, which a first create cannot and need not.
 */
function diskSize(scope: Scope, kind: "sqldb" | "vectordb"): pulumi.Input<number> {
  const configured = scope.size.postgresStorageGb;
  const serverName = scope.deployedServers[kind];
  if (!serverName) return configured;
  return getServerOutput({ resourceGroupName: scope.resourceGroupName, serverName }, { parent: scope.parent }).apply(
    (live) => Math.max(configured, live.storage?.storageSizeGB ?? 0),
  );
}

/** The server's extension settings (vectordb) and its database, one write at a time: parallel writes to one flexible server fail with ServerIsBusy. */
function createPostgresSettings(
  scope: Scope,
  id: string,
  kind: "sqldb" | "vectordb",
  server: Server,
  database: string,
): void {
  const { resourceGroupName } = scope;
  let previous: pulumi.Resource = server;
  const serially = (make: (opts: pulumi.CustomResourceOptions) => pulumi.CustomResource) => {
    previous = make({ parent: scope.parent, dependsOn: [previous] });
    scope.ready.push(previous);
  };
  if (kind === "vectordb") {
    serially(
      (o) =>
        new Configuration(
          `${id}-extensions`,
          {
            resourceGroupName,
            serverName: server.name,
            configurationName: "azure.extensions",
            value: "VECTOR",
            source: "user-override",
          },
          o,
        ),
    );
    // The platform connects to the vector store with sslmode=disable (TLS enforcement is unsupported there).
    serially(
      (o) =>
        new Configuration(
          `${id}-tls`,
          {
            resourceGroupName,
            serverName: server.name,
            configurationName: "require_secure_transport",
            value: "off",
            source: "user-override",
          },
          o,
        ),
    );
  }
  serially(
    (o) =>
      new Database(
        `${id}-db`,
        { resourceGroupName, serverName: server.name, databaseName: database, charset: "UTF8" },
        { ...o, protect: protectState() },
      ),
  );
}

function createCache(scope: Scope): NonNullable<ManagedEndpoints["cache"]> {
  const { resourceGroupName, net, size } = scope;
  const id = `${scope.name}-cache`;
  const cache = new Redis(
    id,
    {
      resourceGroupName,
      location: net.location,
      sku: { name: size.redisSku, family: size.redisSku === "Premium" ? "P" : "C", capacity: size.redisCapacity },
      enableNonSslPort: false,
      minimumTlsVersion: "1.2",
      publicNetworkAccess: "Disabled",
      redisVersion: "6",
      tags: net.tags,
    },
    stateful(scope),
  );
  scope.ready.push(
    ...createPrivateEndpoint(scope, id, cache.id, "redisCache", {
      name: "privatelink.redis.cache.windows.net",
      id: net.privateDnsZoneIds.redis,
    }),
  );
  // Given as config, the key is not listed (docs/security.md, "Preview roles").
  const key = pulumi.secret(
    size.redisAccessKey ??
      listRedisKeysOutput({ name: cache.name, resourceGroupName }, { parent: scope.parent }).apply((k) => k.primaryKey),
  );
  return { host: cache.hostName, port: cache.sslPort, username: "default", password: key };
}

function createDocdb(scope: Scope, database: string): NonNullable<ManagedEndpoints["docdb"]> {
  const { resourceGroupName, net, size } = scope;
  const id = `${scope.name}-docdb`;
  const account = new DatabaseAccount(
    id,
    {
      resourceGroupName,
      location: net.location,
      kind: "MongoDB",
      databaseAccountOfferType: "Standard",
      apiProperties: { serverVersion: size.cosmosServerVersion },
      capabilities: [{ name: "EnableMongo" }],
      locations: [{ locationName: net.location, failoverPriority: 0 }],
      consistencyPolicy: { defaultConsistencyLevel: "Session" },
      publicNetworkAccess: "Disabled",
      minimalTlsVersion: "Tls12",
      // Point-in-time restore to any second of the last 30 days (periodic backups keep two copies,
      // restored only through a support request). Azure migrates an existing account from periodic
      // to continuous in place; the way back is not offered.
      ...(size.cosmosContinuousBackup && {
        backupPolicy: { type: "Continuous", continuousModeProperties: { tier: "Continuous30Days" } },
      }),
      tags: net.tags,
    },
    stateful(scope),
  );
  scope.ready.push(
    new MongoDBResourceMongoDBDatabase(
      `${id}-db`,
      { resourceGroupName, accountName: account.name, databaseName: database, resource: { id: database } },
      stateful(scope),
    ),
    ...createPrivateEndpoint(scope, id, account.id, "MongoDB", {
      name: "privatelink.mongo.cosmos.azure.com",
      id: net.privateDnsZoneIds.mongo,
    }),
  );
  // Given as config, nothing is listed (docs/security.md, "Preview roles"). Listed, it is picked by
  // description: the list also holds read-only strings, in no promised order.
  const primary =
    size.cosmosConnectionString ??
    listDatabaseAccountConnectionStringsOutput(
      { resourceGroupName, accountName: account.name },
      { parent: scope.parent },
    ).apply((r) => {
      const found = r.connectionStrings?.find(
        (c) => c.description === "Primary MongoDB Connection String",
      )?.connectionString;
      if (!found) throw new Error(`Cosmos DB account lists no "Primary MongoDB Connection String"`);
      return found;
    });
  // The database goes in the path, as on AWS.
  const uri = pulumi.secret(primary).apply((p) => p.replace(/\/\?/, `/${encodeURIComponent(database)}?`));
  return { uri };
}
