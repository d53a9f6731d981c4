/**
 * TLS is required (reference: values that must be overridden, TLS): on AWS the load balancer
 * ends it with an ACM certificate named in gateway.proxy.annotations; on Azure a certificate
 * manager issues it. Elsewhere either one, or certificates given in ingress.tls.
 */
import { ACM_ANNOTATION, CERT_MANAGER_PREFIX } from "../constants.js";
import { checkable, rule, type Rule } from "./rule.js";

/** An ACM certificate ARN; the annotation takes one or several, comma-separated. */
const ACM_ARN = /^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[A-Za-z0-9-]+$/;

export const tlsRules: Rule[] = [
  rule(["cloud", "gateway", "ingress"], (s, report) => {
    const acm = (s.gateway.proxy.annotations[ACM_ANNOTATION] ?? "").trim() !== "";
    const issuer = Object.keys(s.ingress.annotations).some((k) => k.startsWith(CERT_MANAGER_PREFIX));
    const certificates = s.ingress.tls.length > 0;
    if (s.cloud.provider === "aws" && !acm) {
      report(
        `gateway.proxy.annotations.${ACM_ANNOTATION}`,
        "is required on aws: TLS ends at the load balancer with the ACM certificate(s) it names",
      );
    }
    const arns = s.gateway.proxy.annotations[ACM_ANNOTATION];
    if (checkable(arns) && arns.trim() !== "" && !arns.split(",").every((a) => ACM_ARN.test(a.trim()))) {
      report(
        `gateway.proxy.annotations.${ACM_ANNOTATION}`,
        "must be ACM certificate ARNs (arn:aws:acm:<region>:<account>:certificate/<id>), comma-separated",
      );
    }
    if (s.cloud.provider === "azure" && !issuer) {
      report(
        "ingress.annotations",
        `needs a certificate manager on azure (a ${CERT_MANAGER_PREFIX}cluster-issuer or ${CERT_MANAGER_PREFIX}issuer annotation): TLS is required`,
      );
    }
    if (s.cloud.provider === "none" && !acm && !issuer && !certificates) {
      report(
        "ingress.tls",
        `TLS is required: give certificates here, or a certificate manager (${CERT_MANAGER_PREFIX}… on ingress.annotations)`,
      );
    }
  }),
];
