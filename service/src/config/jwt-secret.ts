/** The secret member tokens are signed with: JWT_SECRET, else one generated once and kept in the data dir. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { noteProblem, optionalText, type Env } from "./env-readers.js";

/**
 * The shortest HMAC secret accepted, in bytes (RFC 7518 §3.2: a key at least as long as the hash
 * output; 32 for HS256). A shorter one, such as `a`, is guessed offline from any token it signed.
 */
export const MIN_JWT_SECRET_BYTES = 32;

/** The JWT secret: from the environment, else generated once and kept in the data dir (mode 0600). */
export function jwtSecretFor(env: Env, dataDir: string): string {
  const given = optionalText(
    env,
    "JWT_SECRET",
    `any text of at least ${MIN_JWT_SECRET_BYTES} bytes (a long random one)`,
    true,
  );
  if (given) {
    const length = Buffer.byteLength(given);
    if (length < MIN_JWT_SECRET_BYTES)
      noteProblem(
        `JWT_SECRET must be at least ${MIN_JWT_SECRET_BYTES} bytes (got ${length}); generate one with: openssl rand -base64 48`,
      );
    return given;
  }
  const file = join(dataDir, "jwt-secret");
  try {
    if (existsSync(file)) return readFileSync(file, "utf8").trim();
    mkdirSync(dataDir, { recursive: true });
    const secret = randomBytes(48).toString("base64url");
    writeFileSync(file, secret + "\n", { mode: 0o600, flag: "wx" });
    return secret;
  } catch (err) {
    noteProblem(`DATA_DIR must be a writable directory, or JWT_SECRET set (${(err as Error).message})`);
    return "";
  }
}
