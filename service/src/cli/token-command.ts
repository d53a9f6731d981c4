/**
 * `keys token`: a project member's JWT for operators, signed like the platform's with JWT_SECRET
 * (or the secret the embedded default generated into DATA_DIR), so key management over HTTP and
 * the load test's --member-token work against a server started with `npm start`.
 */
import type { ServiceConfig } from "../config.js";
import { MAX_TOKEN_TTL_SECONDS, MEMBER_ROLES, scopeOf, signMemberToken, type Role } from "../domain/member-token.js";

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** `900`, `15m`, `12h` or `7d` in seconds, within (0, MAX_TOKEN_TTL_SECONDS]; undefined when not one. */
export function parseTtl(text: string): number | undefined {
  const m = /^(\d+)([smhd]?)$/.exec(text.trim());
  if (!m) return undefined;
  const seconds = Number(m[1]) * UNIT_SECONDS[(m[2] || "s") as keyof typeof UNIT_SECONDS];
  return seconds > 0 && seconds <= MAX_TOKEN_TTL_SECONDS ? seconds : undefined;
}

export const isRole = (role: string): role is Role => (MEMBER_ROLES as readonly string[]).includes(role);

export interface TokenRequest {
  project: string;
  role: Role;
  ttlSeconds: number;
  user: string;
}

/** The token and when it expires (Unix seconds). */
export async function mintToken(
  config: ServiceConfig,
  req: TokenRequest,
): Promise<{ token: string; expiresAt: number }> {
  const expiresAt = Math.floor(Date.now() / 1000) + req.ttlSeconds;
  const token = await signMemberToken(
    { userId: req.user, projectId: req.project, role: req.role },
    config.jwtSecret,
    scopeOf(config),
    req.ttlSeconds,
  );
  return { token, expiresAt };
}
