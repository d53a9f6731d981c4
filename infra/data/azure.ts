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
import { Configuration, Database, Server } from "@pulumi/azure-native/dbforpostgresql/index.js";
import { PrivateDnsZoneGroup, PrivateEndpoint } from "@pulumi/azure-native/network/index.js";
import { PrivateZone, VirtualNetworkLink } from "@pulumi/azure-native/privatedns/index.js";
import { Redis, listRedisKeysOutput } from "@pulumi/azure-native/redis/index.js";
import type { StackSpec } from "../config.js";
import type { Login, ManagedDataServices, ManagedEndpoints, ManagedLogins, PostgresEndpoint } from "./types.js";

export interface AzureDataServicesArgs {
  /** The services to create, each with the login the platform uses (managedLogins); no mq on Azure. */
  logins: ManagedLogins;
  /** Location, subnets, private DNS zones and tags (cloud.azure). */
  network: StackSpec["cloud"]["azure"];
  /** SKUs, versions and storage (data.azure). */
  sizing: StackSpec["data"]["azure"];
  /** Resource group of the deployment. */
  resourceGroupName: pulumi.Input<string>;
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
}

/** Stateful: a replacement or a delete loses data, so `pulumi up` refuses both until unprotected. */
const stateful = (scope: Scope) => ({ parent: scope.parent, protect: true });

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
      storage: { storageSizeGB: size.postgresStorageGb, autoGrow: "Enabled" },
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
    // autoGrow raises storageSizeGB on Azure's side, and Azure never shrinks a disk: after a
    // refresh, the stack's smaller size would be an update Azure refuses. azure-native has no
    // diff suppression like RDS's maxAllocatedStorage, so the size is read only at creation;
    // an update sends the size in state, so those `up`s run with --refresh; a deliberate
    // increase is made on the server (az postgres flexible-server update --storage-size).
    { ...stateful(scope), ignoreChanges: ["storage.storageSizeGB"] },
  );
  createPostgresSettings(scope, id, kind, server, database);
  return { host: server.fullyQualifiedDomainName, port: 5432, username: user, password, database };
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
        { ...o, protect: true },
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
  const key = pulumi.secret(
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
  // Picked by description: the list also holds read-only strings, in no promised order. The
  // database goes in the path, as on AWS.
  const uri = listDatabaseAccountConnectionStringsOutput(
    { resourceGroupName, accountName: account.name },
    { parent: scope.parent },
  ).apply((r) => {
    const primary = r.connectionStrings?.find(
      (c) => c.description === "Primary MongoDB Connection String",
    )?.connectionString;
    if (!primary) throw new Error(`Cosmos DB account lists no "Primary MongoDB Connection String"`);
    return primary.replace(/\/\?/, `/${encodeURIComponent(database)}?`);
  });
  return { uri: pulumi.secret(uri) };
}
