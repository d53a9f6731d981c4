/** Parts of a stack the deployment does not use, so a placeholder left there is harmless. */
import type { StackSpec } from "./schema.js";

export function unusedPaths(s: Partial<StackSpec>): string[] {
  const out: string[] = [];
  const off = (cond: boolean | undefined, ...paths: string[]) => cond && out.push(...paths);
  if (s.registryCredentials) off(!s.registryCredentials.enabled, "registryCredentials");
  if (s.auditLogs) {
    off(!s.auditLogs.enabled, "auditLogs");
    for (const [name, o] of Object.entries(s.auditLogs.outputs)) off(!o.enabled, `auditLogs.outputs.${name}`);
  }
  if (s.credentials) {
    const t = s.credentials.translator.translator_service;
    off(t !== "clouda", "credentials.translator.clouda");
    off(t !== "cloudb_translate", "credentials.translator.cloudb");
  }
  if (s.storage) {
    const p = s.storage.provider;
    off(p !== "S3", "storage.secret.cloudb");
    off(p !== "AzureStorage", "storage.secret.clouda");
    off(p !== "Minio", "storage.secret.objstore", "objstore", "ingress.objstore");
  }
  if (s.smtp) off(!s.smtp.enabled, "smtp");
  if (s.mail) off(!s.mail.enabled, "mail");
  if (s.localllm) off(!s.localllm.enabled, "localllm", "credentials.localllm");
  if (s.monitoring) off(!s.monitoring.enabled, "monitoring");
  if (s.data) {
    const ext = {
      sqldb: "externalSqldb",
      cache: "externalCache",
      docdb: "externalDocdb",
      mq: "externalMq",
      vectordb: "externalVectordb",
    } as const;
    for (const [svc, name] of Object.entries(ext)) {
      const mode = s.data[svc as keyof typeof ext];
      off(mode !== "external", name);
      off(mode !== "inCluster", svc);
    }
  }
  return out;
}
