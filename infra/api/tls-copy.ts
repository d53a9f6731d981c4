/**
 * The API's certificate where no cert-manager issues one (onprem): a corporate certificate kept
 * as a TLS Secret in another namespace (the platform's), which an Ingress in the API's namespace
 * cannot use. With `api.tlsSourceNamespace` set, every `preview`/`up` reads each `api.tls` Secret
 * there and keeps a copy in the API's namespace, so a renewed certificate reaches the API on the
 * next `up`. A missing Secret, or a certificate that does not name the API host, fails the preview
 * and the run with a clear error instead of an Ingress serving the gateway's default certificate.
 */
import { X509Certificate } from "node:crypto";
import * as pulumi from "@pulumi/pulumi";
import { Secret } from "@pulumi/kubernetes/core/v1/secret.js";
import type { StackSpec } from "../config.js";
import { certificateCovers } from "./certificate-check.js";

/** The DNS names a PEM certificate is issued for (subjectAltName, else its CN). */
export function certificateNames(pem: string): string[] {
  const cert = new X509Certificate(pem);
  const sans = (cert.subjectAltName ?? "").split(/,\s*/).filter((n) => n.startsWith("DNS:"));
  if (sans.length) return sans.map((n) => n.slice(4));
  return [...cert.subject.matchAll(/^CN=(.+)$/gm)].map((m) => m[1]);
}

/** Why a copied TLS Secret cannot serve `host`, or undefined when it can. */
export function tlsSecretProblem(data: Record<string, string> | undefined, host: string): string | undefined {
  const crt = data?.["tls.crt"];
  if (!crt || !data?.["tls.key"]) return "holds no tls.crt and tls.key";
  const names = certificateNames(Buffer.from(crt, "base64").toString("utf8"));
  return certificateCovers(names, host) ? undefined : `names ${names.join(", ")}, not the API host ${host}`;
}

/**
 * Copies the stack's `api.tls` Secrets into the API's namespace from `api.tlsSourceNamespace`;
 * resolves to the copies' `namespace/name` once each is checked (undefined when unset).
 */
export function copyApiTls(
  spec: StackSpec,
  host: string,
  namespace: pulumi.Input<string>,
  opts: pulumi.CustomResourceOptions = {},
): pulumi.Output<string[]> | undefined {
  const from = spec.api.tlsSourceNamespace;
  if (!from) return undefined;
  const names = (spec.api.tls as Array<{ secretName?: string }>).flatMap((t) => (t.secretName ? [t.secretName] : []));
  const copies = [...new Set(names)].map((secretName) => {
    const source = Secret.get(`api-tls-source-${secretName}`, `${from}/${secretName}`, opts);
    new Secret(
      `api-tls-${secretName}`,
      { metadata: { name: secretName, namespace }, type: "kubernetes.io/tls", data: pulumi.secret(source.data) },
      opts,
    );
    // Checked in a stack output, which the run waits for: a preview (where the read is real)
    // reports the problem by name.
    return pulumi.unsecret(source.data).apply((d) => {
      const problem = tlsSecretProblem(d, host);
      if (problem)
        throw new Error(
          `the TLS Secret ${from}/${secretName} (api.tls, copied from api.tlsSourceNamespace) ${problem}`,
        );
      return `${spec.api.namespace}/${secretName}`;
    });
  });
  return pulumi.all(copies);
}
