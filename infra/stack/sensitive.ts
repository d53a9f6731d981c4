/**
 * Which parameters hold secrets. Stack files must give these only as `secure:` values;
 * the plan masks them; every resource input built from them is a secret Output.
 */
// Credential-bearing leaves, also inside free-form lists (remote-write `headers.Authorization`,
// `authorization.credentials`, `bearer_token`, an `X-Api-Key` header).
const SECRET_LEAF =
  /(password|passwords|secret|token|cookie|private_key|mongodb_uri|apikey|accountkey|access_key|accesskey|access_key_id|accesskeyid|connectionstring|(^|[_-])keys?|rootuser|authorization|credentials)$/i;
const SECRET_SUBTREES = [
  /^credentials\.(?!translator\.translator_service$)/,
  /^auditLogs\.outputs\.[^.]+\.env\./,
  /^mail\.mountSecret\.data\./,
];
const NOT_SECRET =
  /^llm\.secretKeys\.[^.]+\.(VERSION|GLOBAL_VERSION|CONVERSE_REGION|CONVERSE_GLOBAL_REGION|INSTANCE_NAME|INSTANCE_NAMES|GLOBAL_INSTANCE_NAMES|MAIN_MODEL_NAME)$|^jwt\.key$|\.(tolerations|matchExpressions)\.key$|^credentials\.(githost_[ab]\.(app_name|client_id))$|^(credentials|auditLogs)\..*\.(ENDPOINT|[A-Z_]*_ENDPOINT|[A-Z_]*LOCATION|REGION|BUCKET|CONTAINER|TABLE|DATABASE_NAME|MAPPING_REFERENCE|STORAGE_ACCOUNT_NAME|TENANT_ID|CLIENT_ID)$/;

/** True when the dotted parameter path (array indices as `[n]`) names a secret. */
export function isSensitivePath(path: string): boolean {
  const plain = path.replace(/\[\d+\]/g, "");
  if (NOT_SECRET.test(plain)) return false;
  if (SECRET_SUBTREES.some((re) => re.test(plain))) return true;
  const leaf = plain.split(".").pop() ?? "";
  return SECRET_LEAF.test(leaf) || plain.startsWith("llm.secretKeys.");
}

/** Placeholders the package ships with (their one home is the policy pack, which must install alone). */
export { PLACEHOLDER } from "../policy/reference.js";

/**
 * Stand-in for a `secure:` value when no secrets provider is available (the offline plan):
 * present, opaque, never a placeholder. Format checks skip it.
 */
export const STANDIN_PREFIX = "secret-standin:";
export const isStandIn = (v: unknown): boolean => typeof v === "string" && v.startsWith(STANDIN_PREFIX);
