/**
 * Managed data services on Azure: PostgreSQL flexible servers (sqldb; vectordb with the
 * vector extension), Azure Cache for Redis and Cosmos DB for MongoDB. PostgreSQL joins the
 * delegated subnet; Redis and Cosmos DB take private endpoints; public access is disabled.
 * Azure has no managed RabbitMQ: validation refuses `data.mq: managed` there.
 */
import * as pulumi from "@pulumi/pulumi";
import { DatabaseAccount, MongoDBResourceMongoDBDatabase, listDatabaseAccountConnectionStringsOutput } from "@pulumi/azure-native/cosmosdb/index.js";
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
  readonly ready: pulumi.Resource[];

  constructor(name: string, args: AzureDataServicesArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super("agentport:data:AzureDataServices", name, {}, opts);
    const { logins, resourceGroupName } = args;
    const net = args.network;
    const size = args.sizing;
    const location = net.location;
    const tags = net.tags;
    const parent = { parent: this };

    // Stateful: a replacement or a delete loses data, so `pulumi up` refuses both until unprotected.
    const stateful = { parent: this, protect: true };
    /** The VNet of the private-endpoint subnet (its id is `<vnet id>/subnets/<name>`). */
    const vnetId = (net.subnetId ?? "").replace(/\/subnets\/[^/]+$/, "");

    /**
     * A private endpoint, and the DNS record that makes the service's own name resolve to it:
     * with public access disabled nothing connects through the public name.
     */
    const privateEndpoint = (id: string, target: pulumi.Input<string>, group: string, zone: { name: string; id?: string }) => {
      const endpoint = new PrivateEndpoint(
        `${id}-pe`,
        {
          resourceGroupName,
          location,
          subnet: { id: net.subnetId },
          privateLinkServiceConnections: [{ name: `${id}-link`, privateLinkServiceId: target, groupIds: [group] }],
          tags,
        },
        parent,
      );
      const zoneId = zone.id ?? privateZone(zone.name).id;
      const dns = new PrivateDnsZoneGroup(
        `${id}-dns`,
        { resourceGroupName, privateEndpointName: endpoint.name, privateDnsZoneConfigs: [{ name: zone.name.replaceAll(".", "-"), privateDnsZoneId: zoneId }] },
        parent,
      );
      return [endpoint, dns];
    };
    const zones = new Map<string, PrivateZone>();
    const privateZone = (zoneName: string) => {
      if (!zones.has(zoneName)) {
        const zone = new PrivateZone(`${name}-${zoneName}`, { resourceGroupName, location: "global", privateZoneName: zoneName, tags }, parent);
        new VirtualNetworkLink(
          `${name}-${zoneName}-link`,
          { resourceGroupName, location: "global", privateZoneName: zone.name, virtualNetwork: { id: vnetId }, registrationEnabled: false, tags },
          parent,
        );
        zones.set(zoneName, zone);
      }
      return zones.get(zoneName)!;
    };
    /** What the platform release must wait for: databases, extension settings, private endpoints with their DNS. */
    this.ready = [];

    const postgres = (kind: "sqldb" | "vectordb", { username: user, password, database }: Login & { database: string }): PostgresEndpoint => {
      const id = `${name}-${kind}`;
      const server = new Server(
        id,
        {
          resourceGroupName,
          location,
          version: size.postgresVersion,
          administratorLogin: user,
          administratorLoginPassword: password,
          sku: { name: size.postgresSku, tier: size.postgresTier },
          storage: { storageSizeGB: size.postgresStorageGb, autoGrow: "Enabled" },
          highAvailability: { mode: size.postgresHighAvailability },
          backup: { backupRetentionDays: size.postgresBackupRetentionDays, geoRedundantBackup: size.postgresGeoRedundantBackup ? "Enabled" : "Disabled" },
          network: { delegatedSubnetResourceId: net.postgresSubnetId, privateDnsZoneArmResourceId: net.postgresPrivateDnsZoneId, publicNetworkAccess: "Disabled" },
          authConfig: { passwordAuth: "Enabled" },
          tags,
        },
        // autoGrow raises storageSizeGB on Azure's side, and Azure never shrinks a disk: after a
        // refresh, the stack's smaller size would be an update Azure refuses. azure-native has no
        // diff suppression like RDS's maxAllocatedStorage, so the size is read only at creation;
        // an update sends the size in state, so those `up`s run with --refresh; a deliberate
        // increase is made on the server (az postgres flexible-server update --storage-size).
        { ...stateful, ignoreChanges: ["storage.storageSizeGB"] },
      );
      // One write at a time: parallel writes to one flexible server fail with ServerIsBusy.
      let previous: pulumi.Resource = server;
      const serially = (make: (opts: pulumi.CustomResourceOptions) => pulumi.CustomResource) => {
        previous = make({ parent: this, dependsOn: [previous] });
        this.ready.push(previous);
      };
      if (kind === "vectordb") {
        serially((o) => new Configuration(`${id}-extensions`, { resourceGroupName, serverName: server.name, configurationName: "azure.extensions", value: "VECTOR", source: "user-override" }, o));
        // The platform connects to the vector store with sslmode=disable (TLS enforcement is unsupported there).
        serially((o) => new Configuration(`${id}-tls`, { resourceGroupName, serverName: server.name, configurationName: "require_secure_transport", value: "off", source: "user-override" }, o));
      }
      serially((o) => new Database(`${id}-db`, { resourceGroupName, serverName: server.name, databaseName: database, charset: "UTF8" }, { ...o, protect: true }));
      return { host: server.fullyQualifiedDomainName, port: 5432, username: user, password, database };
    };

    if (logins.sqldb) this.endpoints.sqldb = postgres("sqldb", logins.sqldb);
    if (logins.vectordb) this.endpoints.vectordb = postgres("vectordb", logins.vectordb);

    if (logins.cache) {
      const id = `${name}-cache`;
      const cache = new Redis(
        id,
        {
          resourceGroupName,
          location,
          sku: { name: size.redisSku, family: size.redisSku === "Premium" ? "P" : "C", capacity: size.redisCapacity },
          enableNonSslPort: false,
          minimumTlsVersion: "1.2",
          publicNetworkAccess: "Disabled",
          redisVersion: "6",
          tags,
        },
        stateful,
      );
      this.ready.push(...privateEndpoint(id, cache.id, "redisCache", { name: "privatelink.redis.cache.windows.net", id: net.privateDnsZoneIds.redis }));
      const key = pulumi.secret(listRedisKeysOutput({ name: cache.name, resourceGroupName }, parent).apply((k) => k.primaryKey));
      this.endpoints.cache = { host: cache.hostName, port: cache.sslPort, username: "default", password: key };
    }

    if (logins.docdb) {
      const id = `${name}-docdb`;
      const database = logins.docdb.database;
      const account = new DatabaseAccount(
        id,
        {
          resourceGroupName,
          location,
          kind: "MongoDB",
          databaseAccountOfferType: "Standard",
          apiProperties: { serverVersion: size.cosmosServerVersion },
          capabilities: [{ name: "EnableMongo" }],
          locations: [{ locationName: location, failoverPriority: 0 }],
          consistencyPolicy: { defaultConsistencyLevel: "Session" },
          publicNetworkAccess: "Disabled",
          minimalTlsVersion: "Tls12",
          tags,
        },
        stateful,
      );
      this.ready.push(
        new MongoDBResourceMongoDBDatabase(
          `${id}-db`,
          { resourceGroupName, accountName: account.name, databaseName: database, resource: { id: database } },
          stateful,
        ),
        ...privateEndpoint(id, account.id, "MongoDB", { name: "privatelink.mongo.cosmos.azure.com", id: net.privateDnsZoneIds.mongo }),
      );
      // Picked by description: the list also holds read-only strings, in no promised order. The
      // database goes in the path, as on AWS.
      const uri = listDatabaseAccountConnectionStringsOutput({ resourceGroupName, accountName: account.name }, parent).apply((r) => {
        const primary = r.connectionStrings?.find((c) => c.description === "Primary MongoDB Connection String")?.connectionString;
        if (!primary) throw new Error(`Cosmos DB account lists no "Primary MongoDB Connection String"`);
        return primary.replace(/\/\?/, `/${encodeURIComponent(database)}?`);
      });
      this.endpoints.docdb = { uri: pulumi.secret(uri) };
    }

    this.registerOutputs({});
  }
}
