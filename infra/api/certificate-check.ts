/**
 * On AWS, TLS ends at the load balancer with the ACM certificate named in the gateway's proxy
 * annotations, for every host, the API's included. The program reads that certificate (a read,
 * not a resource it owns) and stops the preview with a clear error when it does not name the API
 * host or a wildcard over it — otherwise every API client would fail TLS after a "successful" up.
 */
import * as pulumi from "@pulumi/pulumi";
import { Certificate } from "@pulumi/aws/acm/certificate.js";
import type { StackSpec } from "../config.js";
import { ACM_ANNOTATION } from "../constants.js";

export { ACM_ANNOTATION };

/** Whether a certificate's names cover `host` (exactly, or by a one-label `*.` wildcard). */
export function certificateCovers(names: string[], host: string): boolean {
  const h = host.toLowerCase();
  return names.some((n) => {
    const name = n.toLowerCase();
    if (name === h) return true;
    return name.startsWith("*.") && h.endsWith(name.slice(1)) && !h.slice(0, h.length - name.length + 1).includes(".");
  });
}

/** Resolves to the certificate's ARN once it is known to cover `host`; fails the run otherwise. */
export function checkApiCertificate(spec: StackSpec, host: string): pulumi.Output<string> | undefined {
  const arns = spec.gateway.proxy.annotations[ACM_ANNOTATION];
  if (spec.cloud.provider !== "aws" || !arns) return undefined;
  // The annotation may list several certificates; the load balancer serves the one matching SNI.
  const certs = arns.split(",").map((arn, i) => Certificate.get(`api-certificate-${i}`, arn.trim()));
  return pulumi.all(certs.map((c) => pulumi.all([c.domainName, c.subjectAlternativeNames]))).apply((pairs) => {
    const names = pairs
      .flatMap(([domain, sans]) => [domain, ...(sans ?? [])])
      .filter<string>((n): n is string => Boolean(n));
    if (!certificateCovers(names, host)) {
      throw new Error(
        `the ACM certificate in gateway.proxy.annotations["${ACM_ANNOTATION}"] names ${names.join(", ")}, not the API host ${host}: add ${host} (or a wildcard over it) to the certificate`,
      );
    }
    return arns;
  });
}
