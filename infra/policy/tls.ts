/**
 * TLS on the managed endpoints, as the program declares it. The one exception is the vector store,
 * which the platform reaches with sslmode=disable (reference: externalVectordb.sslMode); the
 * program names its resources `<component>-vectordb-…`.
 */
import { UNKNOWN, violation, type PolicyInput, type Violation } from "./resource.js";

const isVectorStore = (r: PolicyInput) => /(^|-)vectordb(-|$)/.test(r.name);
const known = (v: unknown) => v !== UNKNOWN;

// A resource's properties as the policy engine hands them over: untyped by nature.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Check = (props: Record<string, any>, r: PolicyInput) => string | undefined;

const CHECKS: Record<string, Check> = {
  "aws:rds/parameterGroup:ParameterGroup": (p, r) => {
    const force = (p.parameters as Array<{ name: string; value: string }> | undefined)?.find(
      (x) => x.name === "rds.force_ssl",
    )?.value;
    if (isVectorStore(r) || !known(force) || force === "1") return undefined;
    return `rds.force_ssl is ${force ?? "unset"}; PostgreSQL must refuse connections without TLS (rds.force_ssl = 1)`;
  },
  "aws:elasticache/replicationGroup:ReplicationGroup": (p) => {
    if (p.transitEncryptionEnabled !== true && known(p.transitEncryptionEnabled))
      return "transitEncryptionEnabled must be true (TLS in transit)";
    if (p.transitEncryptionMode === "preferred") return "transitEncryptionMode must be required, not preferred";
    return undefined;
  },
  "azure-native:dbforpostgresql:Configuration": (p, r) =>
    p.configurationName === "require_secure_transport" && String(p.value).toLowerCase() === "off" && !isVectorStore(r)
      ? "require_secure_transport is off; PostgreSQL must refuse connections without TLS"
      : undefined,
  "azure-native:redis:Redis": (p) => {
    if (p.enableNonSslPort === true) return "enableNonSslPort must be false (TLS only)";
    if (known(p.minimumTlsVersion) && p.minimumTlsVersion !== "1.2" && p.minimumTlsVersion !== "1.3")
      return `minimumTlsVersion is ${p.minimumTlsVersion ?? "unset"}; must be 1.2 or later`;
    return undefined;
  },
  "azure-native:cosmosdb:DatabaseAccount": (p) =>
    known(p.minimalTlsVersion) && p.minimalTlsVersion !== "Tls12" && p.minimalTlsVersion !== "Tls13"
      ? `minimalTlsVersion is ${p.minimalTlsVersion ?? "unset"}; must be Tls12 or later`
      : undefined,
  "azure-native:storage:StorageAccount": (p) => {
    if (p.enableHttpsTrafficOnly === false) return "enableHttpsTrafficOnly must be true";
    if (known(p.minimumTlsVersion) && p.minimumTlsVersion !== "TLS1_2" && p.minimumTlsVersion !== "TLS1_3")
      return `minimumTlsVersion is ${p.minimumTlsVersion ?? "unset"}; must be TLS1_2 or later`;
    return undefined;
  },
};

export function tlsOff(r: PolicyInput): Violation[] {
  const problem = CHECKS[r.type]?.(r.props, r);
  return problem ? [violation(r, problem)] : [];
}
