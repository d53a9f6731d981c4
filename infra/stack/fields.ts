/**
 * Field builders shared by the stack schema. Each one names the rule it enforces so a
 * rejected stack reads like the deployment reference ("ports 1–65535", "ja or en").
 */
import { z } from "zod";
import { isByteSize } from "./bytes.js";

/** Any string; empty allowed. */
export const str = () => z.string();

/** A string that must not be empty when given. */
export const text = () => z.string().min(1, "must not be empty");

/** A boolean; the chart also accepts "true"/"false" strings, so those are normalised. */
export const bool = () =>
  z.union([z.boolean(), z.enum(["true", "false"])]).transform((v) => v === true || v === "true");

/** A boolean kept as the string "true"/"false" (chart env values are strings). */
export const boolString = () =>
  z.union([z.boolean(), z.enum(["true", "false"])]).transform((v) => String(v) as "true" | "false");

/** A TCP port, 1–65535, given as a number or a numeric string. */
export const port = () =>
  z
    .union([z.number(), z.string().regex(/^\d+$/, "must be a port number (1-65535)")])
    .transform(Number)
    .pipe(z.number().int().min(1, "must be a port number (1-65535)").max(65535, "must be a port number (1-65535)"));

/** A positive integer (replica counts, retention counts). */
export const positiveInt = () =>
  z
    .union([z.number(), z.string().regex(/^\d+$/, "must be a positive integer")])
    .transform(Number)
    .pipe(z.number().int().min(1, "must be a positive integer"));

/** A non-negative integer. */
export const count = () =>
  z
    .union([z.number(), z.string().regex(/^\d+$/, "must be an integer >= 0")])
    .transform(Number)
    .pipe(z.number().int().min(0, "must be an integer >= 0"));

/** A ratio 0.0–1.0, kept as the string the chart expects. */
export const ratio = () =>
  z
    .union([z.number(), z.string().regex(/^\d+(\.\d+)?$/, "must be between 0.0 and 1.0")])
    .transform(Number)
    .pipe(z.number().min(0, "must be between 0.0 and 1.0").max(1, "must be between 0.0 and 1.0"))
    .transform((n) => n.toFixed(Math.max(1, String(n).split(".")[1]?.length ?? 1)));

/** Milliseconds as the gateway's annotations take them: a numeric string. */
export const millis = () =>
  z
    .union([z.number(), z.string().regex(/^\d+$/, "must be milliseconds")])
    .transform(Number)
    .pipe(z.number().int().min(1, "must be at least 1 ms"))
    .transform((n) => String(n));

/** A byte size such as "5120k", "512m" or 5242880. */
export const bytes = () =>
  z.union([z.string(), z.number()]).refine(isByteSize, "must be a byte size such as 5120k, 512m or 5242880");

/** True when `v` parses as an absolute URL with one of these schemes and a host. */
function isUrl(v: string, schemes: readonly string[]): boolean {
  if (!URL.canParse(v)) return false;
  const u = new URL(v);
  return schemes.includes(u.protocol) && u.hostname !== "";
}

/** An http(s) URL with a host (parsed as browsers parse it, so `https://<domain>/x` is refused). */
export const url = () => z.string().refine((v) => isUrl(v, ["http:", "https:"]), "must be an http(s) URL");

/** A browser origin: scheme, host and port only (`https://app.example.com`). */
export const origin = () =>
  z
    .string()
    .refine(
      (v) => isUrl(v, ["http:", "https:"]) && new URL(v).origin === v,
      "must be an origin such as https://app.example.com (no path, no trailing slash)",
    );

/** A WebSocket URL (ws:// or wss://) with a host. */
export const wsUrl = () => z.string().refine((v) => isUrl(v, ["ws:", "wss:"]), "must be a ws:// or wss:// URL");

/** An email address (zod's own check). */
export const email = () => z.email({ error: () => "must be an email address" });

/** A Kubernetes quantity (memory "512Mi", cpu "250m"). */
export const quantity = () =>
  z.union([z.string().regex(/^\d+(\.\d+)?(m|k|Ki|Mi|Gi|Ti|M|G|T)?$/, "must be a Kubernetes quantity"), z.number()]);

/** A host name only: no scheme, no port, no path. */
export const bareHost = () =>
  z
    .string()
    .regex(/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/, "must be a host name only, with no protocol and no port");

/** A CIDR block. */
export const cidr = () => z.string().regex(/^[0-9a-fA-F:.]+\/\d{1,3}$/, "must be a CIDR block");

/** An enumeration with the allowed values in the message. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: () => `must be one of: ${values.join(", ")}` });
}

/** A free-form object (nodeSelector, affinity, annotations). */
export const record = () => z.record(z.string(), z.unknown());

/** A string map (labels, annotations). */
export const stringMap = () => z.record(z.string(), z.string());

/** A free-form list (tolerations, tls entries, scrape configs). */
export const list = () => z.array(z.unknown());

/** Requests/limits of one container. */
export const resources = () =>
  z.strictObject({
    requests: z.strictObject({ memory: quantity().optional(), cpu: quantity().optional() }).optional(),
    limits: z.strictObject({ memory: quantity().optional(), cpu: quantity().optional() }).optional(),
  });

/** Env values as the chart takes them: strings, numbers or booleans. */
export const envValue = () => z.union([z.string(), z.number(), z.boolean()]);

/**
 * The fields every component of the chart has (common rules of the reference). `extra`
 * adds the component's own fields; `env` is open because components take further env keys.
 */
export function component<S extends z.ZodRawShape, E extends z.ZodRawShape>(extra: S, env: E, enabled = true) {
  return z
    .strictObject({
      enabled: bool().default(enabled),
      replicaCount: positiveInt().optional(),
      nameOverride: str().default(""),
      fullnameOverride: str().default(""),
      nodeSelector: record().default({}),
      tolerations: list().default([]),
      affinity: record().default({}),
      serviceAccount: z
        .strictObject({ create: bool().default(true), name: str().default(""), annotations: record().default({}) })
        .prefault({}),
      resources: resources().optional(),
      env: z.looseObject(env).prefault({} as never),
      ...extra,
    })
    .prefault({} as never);
}
