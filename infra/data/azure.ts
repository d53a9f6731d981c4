/**
 * Managed data services on Azure: PostgreSQL flexible servers (sqldb; vectordb with the
 * vector extension), Azure Cache for Redis and Cosmos DB for MongoDB. PostgreSQL joins the
 * delegated subnet; Redis and Cosmos DB take private endpoints; public access is disabled.
 * Azure has no managed RabbitMQ: validation refuses `data.mq: managed` there.
 */
import * as pulumi from "@pulumi/pulumi";
import { DatabaseAccount, MongoDBResourceMongoDBDatabase, listDatabaseAccountConnectionStringsOutput } from "@pulumi/azure-native/cosmosdb/index.js";
import { Configuration, Database, Server } from "@pulumi/azure-native/dbforpostgresql/index.js";
import { PrivateEndpoint } from "@pulumi/azure-native/network/index.js";
import { Redis, listRedisKeysOutput } from "@pulumi/azure-native/redis/index.js";
import type { StackSpec } from "../config.js";
import type { Secrets } from "../secrets.js";
import type { ManagedDataServices, ManagedEndpoints, PostgresEndpoint } from "./types.js";
import { managedPostgres } from "./types.js";

export interface AzureDataServicesArgs {
  /** The validated stack: data modes and sizes, cloud.azure network, service credentials. */
  spec: StackSpec;
  /** Passwords of the services. */
  secrets: Secrets;
  /** Resource group of the deployment. */
  resourceGroupName: pulumi.Input<string>;
}

export class AzureDataServices extends pulumi.ComponentResource implements ManagedDataServices {
  readonly endpoints: ManagedEndpoints = {};

  constructor(name: string, args: AzureDataServicesArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super("agentport:data:AzureDataServices", name, {}, opts);
    const { spec, secrets, resourceGroupName } = args;
    const net = spec.cloud.azure;
    const size = spec.data.azure;
    const location = net.location;
    const tags = net.tags;
    const parent = { parent: this };

    const privateEndpoint = (id: string, target: pulumi.Input<string>, group: string) =>
      new PrivateEndpoint(
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

    const postgres = (kind: "sqldb" | "vectordb", user: string, password: pulumi.Output<string>, database: string): PostgresEndpoint => {
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
          backup: { backupRetentionDays: 7, geoRedundantBackup: "Disabled" },
          network: { delegatedSubnetResourceId: net.postgresSubnetId, privateDnsZoneArmResourceId: net.postgresPrivateDnsZoneId, publicNetworkAccess: "Disabled" },
          authConfig: { passwordAuth: "Enabled" },
          tags,
        },
        parent,
      );
      new Database(`${id}-db`, { resourceGroupName, serverName: server.name, databaseName: database, charset: "UTF8" }, parent);
      if (kind === "vectordb") {
        new Configuration(`${id}-extensions`, { resourceGroupName, serverName: server.name, configurationName: "azure.extensions", value: "VECTOR", source: "user-override" }, parent);
        // The platform connects to the vector store with sslmode=disable (TLS enforcement is unsupported there).
        new Configuration(`${id}-tls`, { resourceGroupName, serverName: server.name, configurationName: "require_secure_transport", value: "off", source: "user-override" }, parent);
      }
      return { host: server.fullyQualifiedDomainName, port: 5432, username: user, password, database };
    };

    Object.assign(this.endpoints, managedPostgres(spec, secrets, postgres));

    if (spec.data.cache === "managed") {
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
        parent,
      );
      privateEndpoint(id, cache.id, "redisCache");
      const key = pulumi.secret(listRedisKeysOutput({ name: cache.name, resourceGroupName }, parent).apply((k) => k.primaryKey));
      this.endpoints.cache = { host: cache.hostName, port: cache.sslPort, username: "default", password: key };
    }

    if (spec.data.docdb === "managed") {
      const id = `${name}-docdb`;
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
        parent,
      );
      new MongoDBResourceMongoDBDatabase(
        `${id}-db`,
        { resourceGroupName, accountName: account.name, databaseName: spec.docdb.auth.databases[0], resource: { id: spec.docdb.auth.databases[0] } },
        parent,
      );
      privateEndpoint(id, account.id, "MongoDB");
      const uri = listDatabaseAccountConnectionStringsOutput({ resourceGroupName, accountName: account.name }, parent).apply(
        (r) => r.connectionStrings?.[0]?.connectionString ?? "",
      );
      this.endpoints.docdb = { uri: pulumi.secret(uri) };
    }

    this.registerOutputs({});
  }
}
