/**
 * Kubernetes objects checked the way the API server would: against the official OpenAPI schemas
 * (kubernetes-models), plus a strict walk for fields the schemas would let through but the API
 * server drops or refuses (kubernetes-models accepts unknown fields; @kubernetes/client-node's
 * model attribute maps list every field a type has).
 */
import * as k8s from "@kubernetes/client-node";
import { isSecretEnvelope } from "../../infra/plan/run.js";

type Json = unknown;

/** A plan's inputs with secret envelopes opened (the values are what the cluster would get). */
export function unwrapSecrets(value: Json): Json {
  if (isSecretEnvelope(value)) return unwrapSecrets(value.value);
  if (Array.isArray(value)) return value.map(unwrapSecrets);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unwrapSecrets(v)]));
  return value;
}

/** Schema errors of one object (empty when valid), from the kubernetes-models class of its kind. */
export async function schemaErrors(obj: { apiVersion: string; kind: string }): Promise<string[]> {
  const mod = (await import(/* @vite-ignore */ `kubernetes-models/${obj.apiVersion}/${obj.kind}`)) as Record<
    string,
    new (data: unknown) => { validate(): void }
  >;
  const Model = mod[obj.kind];
  try {
    new Model(obj).validate();
    return [];
  } catch (err) {
    return [(err as Error).message];
  }
}

type AttributeMap = Array<{ baseName: string; type: string }>;
const models = k8s as unknown as Record<string, { getAttributeTypeMap?: () => AttributeMap }>;

/** Paths of fields that the object's type does not have. */
export function unknownFields(obj: { apiVersion: string; kind: string }): string[] {
  const version = obj.apiVersion.split("/").pop()!;
  return walk(obj, `${version[0].toUpperCase()}${version.slice(1)}${obj.kind}`, obj.kind);
}

function walk(value: Json, type: string, path: string): string[] {
  if (value === null || value === undefined) return [];
  const array = /^Array<(.+)>$/.exec(type);
  if (array) return Array.isArray(value) ? value.flatMap((v, i) => walk(v, array[1], `${path}[${i}]`)) : [];
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) return Object.entries(value).flatMap(([k, v]) => walk(v, map[1], `${path}.${k}`));
  const attributes = models[type]?.getAttributeTypeMap?.();
  if (!attributes || typeof value !== "object") return [];
  const fields = new Map(attributes.map((a) => [a.baseName, a.type]));
  return Object.entries(value).flatMap(([k, v]) =>
    fields.has(k) ? walk(v, fields.get(k)!, `${path}.${k}`) : [`${path}.${k}`],
  );
}
