/**
 * The agentport policy pack: `pulumi preview --policy-pack infra/policy`. It checks what only
 * exists at preview (real secret values, resource options, the inputs providers get); the rules
 * live in policies.ts, this file only adapts the policy SDK's view of a resource to theirs.
 */
import { PolicyPack, UnknownValueError, type PolicyResource, type ResourceValidationArgs } from "@pulumi/policy";
import { POLICIES } from "./policies.js";
import { UNKNOWN, type PolicyInput } from "./resource.js";

/**
 * A plain copy of the SDK's props. The SDK throws on reading a value unknown at preview, which
 * would turn a whole check advisory; each unknown becomes UNKNOWN instead, so the rest is checked.
 */
function plain(value: unknown): unknown {
  if (!value || typeof value !== "object") return value;
  const read = (key: string | number) => {
    try {
      return plain((value as Record<string | number, unknown>)[key]);
    } catch (err) {
      if (err instanceof UnknownValueError) return UNKNOWN;
      throw err;
    }
  };
  if (Array.isArray(value)) return Array.from({ length: value.length }, (_, i) => read(i));
  return Object.fromEntries(Object.keys(value).map((k) => [k, read(k)]));
}

function input(r: ResourceValidationArgs | PolicyResource): PolicyInput {
  const deps = "propertyDependencies" in r ? r.propertyDependencies : {};
  const provider = r.provider ? (plain(r.provider.props) as Record<string, unknown>) : undefined;
  return {
    type: r.type,
    name: r.name,
    props: plain(r.props) as Record<string, unknown>,
    protect: r.opts.protect,
    // urn:pulumi:<stack>::<project>::<type>::<name>
    stack: r.urn.split("::")[0].replace(/^urn:pulumi:/, ""),
    providerRegion: provider?.region,
    dependsOn: Object.fromEntries(Object.entries(deps).map(([k, rs]) => [k, rs.map((d) => d.name)])),
  };
}

new PolicyPack("agentport", {
  enforcementLevel: "mandatory",
  policies: POLICIES.map((p) =>
    "resource" in p
      ? {
          name: p.name,
          description: p.description,
          validateResource: (args, report) => p.resource(input(args)).forEach((v) => report(v.message)),
        }
      : {
          name: p.name,
          description: p.description,
          validateStack: (args, report) => {
            const urns = new Map(args.resources.map((r) => [r.name, r.urn]));
            for (const v of p.stack(args.resources.map(input))) report(v.message, urns.get(v.resource));
          },
        },
  ),
});
