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

/** The API Ingress's `tls` entries with each copied Secret's name, and the checked copies. */
export interface TlsCopies {
  tls: pulumi.Output<Array<{ secretName?: string; hosts?: string[] }>>;
  /** `namespace/name` of each copy, once its certificate is checked to name the API host. */
  checked: pulumi.Output<string[]>;
}

/**
 * Copies the stack's `api.tls` Secrets into the API's namespace from `api.tlsSourceNamespace`
 * (undefined when unset) and points the Ingress's entries at the copies.
 *
 * Each copy is auto-named (`api-tls-<name>-<random>`), never given `metadata.name`: pulumi-kubernetes
 * replaces a Secret whose `data` changes (provider/pkg/provider/diff.go: `.data`, `.stringData` and
 * `.type` force a new object unless the provider's `enableSecretMutable` is on), and it deletes
 * before it creates only an object with a fixed name (provider/pkg/provider/provider.go, Diff's
 * `deleteBeforeReplace`: named, not auto-named, same name and namespace). Auto-named, a renewed
 * certificate is a create-before-delete replacement under a new name: the Ingress moves to the
 * new copy in the same `up`, and the old copy goes only after it. A Secret copied by hand under
 * the source's name does not collide with it either.
 */
export function copyApiTls(
  api: Pick<StackSpec["api"], "tlsSourceNamespace" | "namespace">,
  host: string,
  namespace: pulumi.Input<string>,
  tls: ReadonlyArray<{ secretName?: string; hosts?: string[] }>,
  opts: pulumi.CustomResourceOptions = {},
): TlsCopies | undefined {
  const from = api.tlsSourceNamespace;
  if (!from) return undefined;
  const names = tls.flatMap((t) => (t.secretName ? [t.secretName] : []));
  const copies = new Map(
    [...new Set(names)].map((secretName) => {
      const source = Secret.get(`api-tls-source-${secretName}`, `${from}/${secretName}`, opts);
      const copy = new Secret(
        `api-tls-${secretName}`,
        { metadata: { namespace }, type: "kubernetes.io/tls", data: pulumi.secret(source.data) },
        opts,
      );
      // Checked in a stack output, which the run waits for: a preview (where the read is real)
      // reports the problem by name, before the copy has a name.
      const sourceChecked = pulumi.unsecret(source.data).apply((d) => {
        const problem = tlsSecretProblem(d, host);
        if (problem)
          throw new Error(
            `the TLS Secret ${from}/${secretName} (api.tls, copied from api.tlsSourceNamespace) ${problem}`,
          );
        return true;
      });
      const checked = pulumi.all([sourceChecked, copy.metadata.name]).apply(([, name]) => `${api.namespace}/${name}`);
      return [secretName, { name: copy.metadata.name, checked }] as const;
    }),
  );
  const entries = tls.map((t) => {
    const copy = t.secretName ? copies.get(t.secretName) : undefined;
    return copy ? copy.name.apply((secretName) => ({ ...t, secretName })) : pulumi.output(t);
  });
  return { tls: pulumi.all(entries), checked: pulumi.all([...copies.values()].map((c) => c.checked)) };
}
