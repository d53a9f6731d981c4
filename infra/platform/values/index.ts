/**
 * The complete values tree of the vendor chart, built purely from the validated stack,
 * the secrets, the storage variant and the data endpoints. Leaves may be Outputs; the
 * release wraps the whole tree in a secret.
 */
import { componentValues } from "./components.js";
import { credentialValues } from "./credentials.js";
import { dataValues } from "./data.js";
import { monitoringValues } from "./monitoring.js";
import type { Values, ValuesInput } from "./types.js";
import { webValues } from "./web.js";

export type { PlatformSecrets, Values, ValuesInput } from "./types.js";

export function buildPlatformValues(input: ValuesInput): Values {
  return {
    ...credentialValues(input),
    ...webValues(input),
    ...componentValues(input),
    ...dataValues(input),
    ...monitoringValues(input),
  };
}
