/**
 * Values of the deployment reference the pack checks against. Their one home is here, inside the
 * pack, so it can be installed alone; the program imports them from here (infra/constants.ts,
 * infra/stack/sensitive.ts re-export them).
 */

/** Cloud-B's storage region (reference: Storage): signed URLs are made for it, so the buckets live there. */
export const CLOUDB_STORAGE_REGION = "ap-northeast-1";

/**
 * The reference's suggested lengths of generated secrets (Authentication), by parameter path: the
 * program generates them this long, the policy pack refuses a shorter one set by a stack.
 */
export const SUGGESTED_SECRET_LENGTHS = {
  "jwt.secret": 64,
  "credentials.boost.SERVICE_BOOST_API_KEY_MAIN": 32,
  "credentials.boost.SERVICE_BOOST_LLMPROXY_KEY": 32,
  "credentials.html_conversion.BEARER_TOKEN": 32,
  "storage.secret.objstore.ACCESS_KEY_ID": 20,
  "storage.secret.objstore.SECRET_ACCESS_KEY": 40,
} as const;

/** Placeholders the package ships with, in any letter case; any left in a used value stops the deployment. */
export const PLACEHOLDER = /<REPLACE_WITH_YOUR_[^>]*>|PLACEHOLDER_VALUE|<PRIVATE_KEY>/i;
