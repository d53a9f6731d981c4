/** Public URLs of a stack, derived from its ingress settings. */
import type { StackSpec } from "./stack/schema.js";

export interface PlatformUrls {
  platform: string;
  chat: string;
  /** Undefined when monitoring or its ingress is off. */
  dashboards?: string;
  metrics?: string;
}

export function platformUrls(spec: StackSpec): PlatformUrls {
  const i = spec.ingress;
  const sub = (name: "dashboards" | "metrics"): string | undefined => {
    const s = i[name];
    if (!spec.monitoring.enabled || !s.enabled) return undefined;
    return s.type === "subdomain"
      ? `https://${s.domain ?? `${name}.${i.domainName}`}`
      : `https://${i.domainName}${s.pathPrefix}`;
  };
  return {
    platform: `https://${i.domainName}`,
    chat: `https://${i.chatDomainName}`,
    dashboards: sub("dashboards"),
    metrics: sub("metrics"),
  };
}
