/**
 * Offline provider mocks for the plan and the tests: every resource "creates" with its
 * inputs plus the outputs the program reads (addresses, ARNs, keys). Generated secrets
 * are deterministic (stable snapshots) and returned as secrets; each one is remembered so
 * the plan can mask it and the tests can prove it never appears in plaintext.
 */
import { createHash } from "node:crypto";
import * as pulumi from "@pulumi/pulumi";

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return --
   Pulumi's mock interface hands resource inputs over and takes outputs back untyped. */

export interface RecordedResource {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
}

/** A provider function the program called (what a preview asks the cloud for). */
export interface RecordedInvoke {
  token: string;
  inputs: Record<string, unknown>;
}

export interface Recorder {
  mocks: pulumi.runtime.Mocks;
  resources: RecordedResource[];
  invokes: RecordedInvoke[];
  /** Every secret value the mocks generated. */
  secretValues: Set<string>;
}

const fake = (seed: string, length: number) =>
  createHash("sha256").update(seed).digest("base64url").replace(/[-_]/g, "x").padEnd(length, "x").slice(0, length);

/** The ACM certificates the mocked account holds, by ARN suffix (the stacks name these). */
function acmCertificates(arn: string): { domainName: string; subjectAlternativeNames: string[] } {
  const domain = arn.endsWith("-staging") ? "staging.agents.example.com" : "agents.example.com";
  return { domainName: domain, subjectAlternativeNames: [domain, `*.${domain}`] };
}

/** The TLS Secrets the mocked cluster holds (a corporate wildcard, self-signed for the plan). */
const CLUSTER_TLS_CERT = `-----BEGIN CERTIFICATE-----
MIIB3zCCAYagAwIBAgIUICluLLSIwoRnywC3pGwMwev4lPgwCgYIKoZIzj0EAwIw
JDEiMCAGA1UEAwwZKi5hZ2VudHMuY29ycC5leGFtcGxlLmNvbTAgFw0yNjExMjcw
MTQ0NDNaGA8yMTI2MTEwMzAxNDQ0M1owJDEiMCAGA1UEAwwZKi5hZ2VudHMuY29y
cC5leGFtcGxlLmNvbTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABPPMwtYtjky0
8NmrCRmh0r06guqIE8W4W/GZHvKOspx3CXXZi3zPr3Mt7x0sYx198Sahj8lI1yef
5JldeMfCRHujgZMwgZAwHQYDVR0OBBYEFPE3WkJZGiF6f7Yw4UG4hinjJOEDMB8G
A1UdIwQYMBaAFPE3WkJZGiF6f7Yw4UG4hinjJOEDMA8GA1UdEwEB/wQFMAMBAf8w
PQYDVR0RBDYwNIIZKi5hZ2VudHMuY29ycC5leGFtcGxlLmNvbYIXYWdlbnRzLmNv
cnAuZXhhbXBsZS5jb20wCgYIKoZIzj0EAwIDRwAwRAIgVjiZ3s0QmgBXIYGihOOC
X8oOqZcnPEYL4PBWITP77A4CIEng7iBJxdx1Fz4KifJa26nEIJKaCC8ZgAC3n5xd
pi1p
-----END CERTIFICATE-----
`;

export function createRecorder(): Recorder {
  const resources: RecordedResource[] = [];
  const invokes: RecordedInvoke[] = [];
  const secretValues = new Set<string>();
  const secret = (value: string) => {
    secretValues.add(value);
    return pulumi.secret(value);
  };

  const mocks: pulumi.runtime.Mocks = {
    newResource(args) {
      // A read of an existing resource (`X.get`): what the cloud would answer, not a new resource.
      if (args.id && args.type === "aws:acm/certificate:Certificate") {
        return { id: args.id, state: { arn: args.id, ...acmCertificates(args.id) } };
      }
      if (args.id && args.type === "kubernetes:core/v1:Secret") {
        const data = {
          "tls.crt": Buffer.from(CLUSTER_TLS_CERT).toString("base64"),
          "tls.key": secret(Buffer.from(`mock-key-${fake(args.id, 32)}`).toString("base64")),
        };
        return { id: args.id, state: { type: "kubernetes.io/tls", data: pulumi.secret(data) } };
      }
      resources.push({ type: args.type, name: args.name, inputs: args.inputs });
      return {
        id: `${args.name}-id`,
        state: { ...args.inputs, ...outputs(args.type, args.name, args.inputs, secret) },
      };
    },
    call: (args) => {
      invokes.push({ token: args.token, inputs: args.inputs });
      return callResult(args, remember);
    },
  };
  function remember(value: string): string {
    secretValues.add(value);
    return value;
  }
  return { mocks, resources, invokes, secretValues };
}

/** What the provider answers on creating a resource, beyond its inputs: the outputs the program reads. */
function outputs(
  type: string,
  name: string,
  i: Record<string, any>,
  secret: (value: string) => unknown,
): Record<string, unknown> {
  switch (type) {
    case "random:index/randomPassword:RandomPassword":
      // New keepers, a new password (as the random provider replaces it).
      return {
        result: secret(`m${fake(name + (i.keepers ? JSON.stringify(i.keepers) : ""), Number(i.length ?? 32) - 1)}`),
      };
    case "tls:index/privateKey:PrivateKey":
      return {
        privateKeyPem: secret(`-----BEGIN RSA PRIVATE KEY-----\n${fake(name, 64)}\n-----END RSA PRIVATE KEY-----\n`),
      };
    case "aws:iam/accessKey:AccessKey":
      return { secret: secret(`mock-${fake(name, 36)}`) };
    case "aws:iam/user:User":
      return { name: `${name}-user`, arn: `arn:aws:iam::111122223333:user/${name}` };
    case "aws:iam/role:Role":
      return { name: `${name}-role`, arn: `arn:aws:iam::111122223333:role/agentport/${name}` };
    case "aws:s3/bucket:Bucket":
      return { arn: `arn:aws:s3:::${i.bucket}` };
    case "aws:rds/instance:Instance":
      return { address: `${name}.mock.${i.region}.rds.amazonaws.com`, port: 5432 };
    case "aws:elasticache/replicationGroup:ReplicationGroup":
      return { primaryEndpointAddress: `master.${name}.mock.cache.amazonaws.com` };
    case "aws:docdb/cluster:Cluster":
      return { endpoint: `${name}.cluster-mock.${i.region}.docdb.amazonaws.com` };
    case "aws:mq/broker:Broker":
      return { instances: [{ endpoints: [`amqps://b-${name}.mq.${i.region}.amazonaws.com:5671`] }] };
    case "azure-native:dbforpostgresql:Server":
      return { name, fullyQualifiedDomainName: `${name}.postgres.database.azure.com` };
    case "azure-native:redis:Redis":
      return { name, hostName: `${name}.redis.cache.windows.net`, sslPort: 6380 };
    case "azure-native:storage:StorageAccount":
      return { name: i.accountName ?? name };
    case "azure-native:resources:ResourceGroup":
      return { name: i.resourceGroupName ?? name };
    case "random:index/randomId:RandomId":
      return {
        hex: createHash("sha256")
          .update(name)
          .digest("hex")
          .slice(0, Number(i.byteLength ?? 4) * 2),
      };
    case "aws:mq/configuration:Configuration":
      return { latestRevision: 1 };
    case "aws:ecr/repository:Repository":
      return {
        name: i.name,
        registryId: "111122223333",
        repositoryUrl: `111122223333.dkr.ecr.${i.region}.amazonaws.com/${i.name}`,
      };
    case "docker-build:index:Image": {
      // What a push reports: the tag, and the digest of what was pushed. PLAN_IMAGE_SOURCES
      // stands for other sources (another commit's service code), which build another digest.
      const digest = `sha256:${createHash("sha256")
        .update(JSON.stringify(i.tags) + (process.env.PLAN_IMAGE_SOURCES ?? ""))
        .digest("hex")}`;
      return { digest, ref: `${String(i.tags[0])}@${digest}` };
    }
    case "kubernetes:helm.sh/v3:Release":
      return { name: i.name ?? name, namespace: i.namespace, status: { status: "deployed" } };
    default:
      if (type.startsWith("kubernetes:"))
        return { metadata: { ...(i.metadata ?? {}), name: i.metadata?.name ?? name } };
      if (type.startsWith("azure-native:")) return { name: i.accountName ?? i.name ?? name };
      return {};
  }
}

/** What a provider function (an invoke) answers; every credential it returns is remembered. */
function callResult(args: pulumi.runtime.MockCallArgs, remember: (value: string) => string): Record<string, any> {
  const i = args.inputs as Record<string, string>;
  switch (args.token) {
    case "aws:ecr/getAuthorizationToken:getAuthorizationToken":
      return { userName: "AWS", password: remember(`mock-ecr-token-${fake(String(i.registryId), 32)}`) };
    case "azure-native:dbforpostgresql:getServer":
      // The deployed server as Azure reports it. PLAN_POSTGRES_LIVE_GB stands for a disk autoGrow
      // enlarged; unset, the disk is the schema's default size.
      return {
        name: i.serverName,
        storage: { storageSizeGB: Number(process.env.PLAN_POSTGRES_LIVE_GB ?? 64), autoGrow: "Enabled" },
      };
    case "azure-native:storage:listStorageAccountKeys":
      return { keys: [{ keyName: "key1", value: remember(`mock-storage-key-${fake(String(i.accountName), 40)}`) }] };
    case "azure-native:redis:listRedisKeys":
      return {
        primaryKey: remember(`mock-redis-key-${fake(String(i.name), 32)}`),
        secondaryKey: remember(`mock-redis-key2-${fake(String(i.name), 32)}`),
      };
    case "azure-native:cosmosdb:listDatabaseAccountConnectionStrings": {
      const key = remember(`mock-cosmos-key-${fake(String(i.accountName), 32)}`);
      // As Azure lists them: read-write and read-only, primary and secondary, in no promised order.
      const cs = (k: string) =>
        `mongodb://${i.accountName}:${k}@${i.accountName}.mongo.cosmos.azure.com:10255/?ssl=true&replicaSet=globaldb&retrywrites=false`;
      return {
        connectionStrings: [
          {
            connectionString: cs(remember(`mock-cosmos-ro-${fake(String(i.accountName), 32)}`)),
            description: "Primary Read-Only MongoDB Connection String",
          },
          { connectionString: cs(key), description: "Primary MongoDB Connection String" },
        ],
      };
    }
    default:
      return args.inputs;
  }
}
