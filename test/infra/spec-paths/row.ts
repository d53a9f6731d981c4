/**
 * The conformance table's row model and what its sections share: the columns a row may declare,
 * why a column may not apply, the smallest valid stack and the common feature switches.
 */
import { ACM_ANNOTATION } from "../../../infra/constants.js";

export const CHART = Symbol("left to the chart");
/**
 * A generated secret, by its source: the random resource the Secrets component creates (its name
 * after the component's), the length it asks for and the letters-and-digits alphabet. `rsa`: a
 * generated RSA key. `suggested`: the reference's suggested length, when it gives one.
 */
export interface Generated {
  generated: { resource: string; length?: number; suggested?: number; rsa?: true; list?: true };
}
export const GENERATED = (
  resource: string,
  length: number | "rsa",
  extra: { suggested?: number; list?: true } = {},
): Generated => ({
  generated: length === "rsa" ? { resource, rsa: true } : { resource, length, ...extra },
});
export const isGenerated = (v: unknown): v is Generated => !!v && typeof v === "object" && "generated" in v;

/** A stack edit (feature switches, settings a check needs). */
export type Edit = (raw: Record<string, any>) => void;

export interface SpecRow {
  /** The path as the reference writes it. */
  path: string;
  /** Where our values render it, when that differs (a name the reference hides). */
  rendered?: string;
  /** Where a stack sets it and a refusal names it, when that differs. */
  param?: string;
  /** Where the override is set, when param is a pattern (one concrete key of it). */
  setAt?: string;
  default?: unknown;
  override?: unknown;
  invalid?: unknown;
  fixed?: unknown;
  required?: true;
  /** Sensitive: overrides are given as `secure:` entries. */
  secret?: true;
  base?: string;
  on?: Edit;
  feature?: Edit;
  /** How the required check leaves the value out, when deleting `param` is not how. */
  unset?: Edit;
  /** Entries the stack adds after a list's own (default or override), e.g. the API's scrape job. */
  appended?: unknown[];
  note?: string;
  /** Why the default is the program's choice: the reference shows a placeholder or no value there. */
  choice?: string;
  /** Where the program departs from the reference on purpose: what it renders instead, and why. */
  deviation?: { renders: unknown; why: string };
  /** Columns that do not apply to the row, each with its reason (NA); the totals count them apart. */
  na?: { override?: string; default?: string };
}

/** Why a column does not apply to a row. */
export const NA = {
  fixed: "not to be changed: the reference's or the package's own value",
  follows: "follows another parameter, which a stack sets instead",
  placeholder: "the reference's default is a placeholder (or empty) that the stack must replace",
  none: "the reference shows no default",
  alias: "another name the reference uses for paths other rows check",
} as const;
export const fixedValue = { override: NA.fixed };
export const placeholder = { default: NA.placeholder };

/** A stand-in for a secret the stack gives as a `secure:` entry. */
export const S = (path: string) => `secret-standin:${path}`;

/** The smallest stack that validates: everything at the reference's defaults. */
export const MINIMAL: Record<string, any> = {
  cloud: { provider: "aws" },
  platform: { repository: "https://charts.example.com/platform", chart: "platform", version: "26.2.16" },
  api: { image: "ghcr.io/example/agentport:0.1.0" },
  ingress: { domainName: "platform.example.com", chatDomainName: "chat.example.com" },
  gateway: {
    proxy: { annotations: { [ACM_ANNOTATION]: "arn:aws:acm:ap-northeast-1:111122223333:certificate/minimal" } },
  },
  storage: {
    secret: {
      cloudb: {
        BUCKET: "min-main",
        PUBLIC_BUCKET: "min-public",
        EXPORT_PROJECT_BUCKET: "min-export",
        ULTRON_BUCKET: "min-ultron",
      },
    },
  },
  company: {
    domain: "example.com",
    name: "Example",
    brand_name: "Example",
    pages: { terms_of_service_url: "https://example.com/terms", privacy_policy_url: "https://example.com/privacy" },
  },
  mailer: {
    smtp_settings: { address: "smtp.example.com", user_name: "mailer", password: S("mailer") },
    default_from_email: "noreply@example.com",
  },
  registryCredentials: {
    server: "registry.example.com",
    username: "puller",
    password: S("registry"),
    email: "puller@example.com",
  },
  credentials: { translator: { cloudb: { ACCESS_KEY_ID: S("tr-id"), SECRET_ACCESS_KEY: S("tr-secret") } } },
  llm: {
    secretKeys: {
      direct: { API_KEY: S("api"), VISION_KEY: S("vision"), EMBEDDING_KEY: S("embed"), MAIN_MODEL_NAME: "gpt-4o" },
    },
  },
  frontend: {
    env: {
      REACT_APP_CLIENT_ID: "web",
      REACT_APP_CLIENT_SECRET: S("client"),
      REACT_APP_CAPTCHA_SITE_KEY: S("captcha"),
      ICON_FONT_REGISTRY_TOKEN: S("icons"),
    },
  },
};

/** Objstore storage on: the objstore component and its settings are used. */
export const minio: Edit = (r) => (r.storage = { provider: "Minio" });
/** LLM mode clouda with its Required keys and a boost instance. */
export const clouda: Edit = (r) => {
  r.llm.AI_MODE = "clouda";
  r.llm.secretKeys.clouda = { KEY: S("ck"), INSTANCE_NAME: "tenant-jpe" };
  r.credentials.boost = { SERVICE_BOOST_API_CONFIG_CLOUDA_INSTANCE_1_4O: S("inst") };
};

export type Add = (path: string, columns?: Omit<SpecRow, "path">) => void;

/** One section's rows, and the function that appends a row to them. */
export function section(): { rows: SpecRow[]; add: Add } {
  const rows: SpecRow[] = [];
  return { rows, add: (path, columns = {}) => void rows.push({ path, ...columns }) };
}
