/**
 * Project members authenticate key management with a JWT signed with the deployment's jwt.secret
 * (JWT_SECRET, algorithm JWT_ALGORITHM, default HS512). Claims: `sub` (user id), `project_id`,
 * `role` (owner | admin | member), optional `name` and `email`; `iss` and `aud` this deployment's
 * (JWT_ISSUER, JWT_AUDIENCE), `iat` and `exp` at most MAX_TOKEN_TTL_SECONDS apart. The CLI and the
 * load test sign tokens with it too, so it lives outside the HTTP plugins.
 */
import { jwtVerify, SignJWT, errors as joseErrors } from "jose";
import { invalidToken } from "../errors.js";

export const MEMBER_ROLES = ["owner", "admin", "member"] as const;
export type Role = (typeof MEMBER_ROLES)[number];

export interface Member {
  userId: string;
  projectId: string;
  role: Role;
  name?: string;
  email?: string;
}

/** Longest lifetime (`exp` − `iat`) of a member token: an operator's token, not a standing credential. */
export const MAX_TOKEN_TTL_SECONDS = 30 * 86_400;
/** How far the signer's clock may run ahead of ours: an `iat` later than that is refused. */
export const CLOCK_SKEW_SECONDS = 60;
/** The `iss` and `aud` of this deployment's member tokens unless JWT_ISSUER / JWT_AUDIENCE say otherwise. */
export const DEFAULT_JWT_ISSUER = "agentport";
export const DEFAULT_JWT_AUDIENCE = "agentport-api";

/** Whose tokens these are: the claims a token must carry to be taken as this deployment's. */
export interface TokenScope {
  algorithm: string;
  issuer: string;
  audience: string;
}

const secretKey = (secret: string) => new TextEncoder().encode(secret);

async function verifiedClaims(token: string, secret: string, scope: TokenScope) {
  try {
    const { payload } = await jwtVerify(token, secretKey(secret), {
      algorithms: [scope.algorithm],
      requiredClaims: ["sub", "exp", "iat"],
      issuer: scope.issuer,
      audience: scope.audience,
    });
    return payload as Record<string, unknown> & { iat: number; exp: number };
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) throw invalidToken("the token has expired.");
    if (err instanceof joseErrors.JWTClaimValidationFailed)
      throw invalidToken(`claim '${err.claim}' is missing or invalid.`);
    throw invalidToken("the signature or format is not valid.");
  }
}

export async function verifyMemberToken(token: string, secret: string, scope: TokenScope): Promise<Member> {
  const payload = await verifiedClaims(token, secret, scope);
  // jose's maxTokenAge would check `iat` too, but with the same tolerance on `exp`: an expired token must stay expired.
  if (payload.iat > Date.now() / 1000 + CLOCK_SKEW_SECONDS) throw invalidToken("claim 'iat' is in the future.");
  if (payload.exp - payload.iat > MAX_TOKEN_TTL_SECONDS)
    throw invalidToken(`its lifetime (exp − iat) exceeds ${MAX_TOKEN_TTL_SECONDS / 86_400} days.`);
  const { sub, project_id: projectId, role, name, email } = payload;
  if (typeof projectId !== "string" || !projectId) throw invalidToken("claim 'project_id' is missing.");
  if (!MEMBER_ROLES.includes(role as Role))
    throw invalidToken(`claim 'role' must be one of ${MEMBER_ROLES.join(", ")}.`);
  return {
    userId: String(sub),
    projectId,
    role: role as Role,
    name: typeof name === "string" ? name : undefined,
    email: typeof email === "string" ? email : undefined,
  };
}

const DEFAULT_SCOPE: TokenScope = { algorithm: "HS512", issuer: DEFAULT_JWT_ISSUER, audience: DEFAULT_JWT_AUDIENCE };

/** Signs a member token (the CLI and tests use it; the platform's own login issues real ones). */
export function signMemberToken(
  member: Member,
  secret: string,
  scope: TokenScope = DEFAULT_SCOPE,
  ttlSeconds = 300,
): Promise<string> {
  return new SignJWT({ project_id: member.projectId, role: member.role, name: member.name, email: member.email })
    .setProtectedHeader({ alg: scope.algorithm })
    .setIssuer(scope.issuer)
    .setAudience(scope.audience)
    .setSubject(member.userId)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
    .sign(secretKey(secret));
}

/** The scope of the deployment's tokens, from its configuration (JWT_ALGORITHM, JWT_ISSUER, JWT_AUDIENCE). */
export const scopeOf = (config: { jwtAlgorithm: string; jwtIssuer: string; jwtAudience: string }): TokenScope => ({
  algorithm: config.jwtAlgorithm,
  issuer: config.jwtIssuer,
  audience: config.jwtAudience,
});
