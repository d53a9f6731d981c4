/**
 * Project members authenticate key management with a JWT signed with the deployment's jwt.secret
 * (JWT_SECRET, algorithm JWT_ALGORITHM, default HS512). Claims: `sub` (user id), `project_id`,
 * `role` (owner | admin | member), optional `name` and `email`. The CLI and the load test sign
 * tokens with it too, so it lives outside the HTTP plugins.
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

const secretKey = (secret: string) => new TextEncoder().encode(secret);

export async function verifyMemberToken(token: string, secret: string, algorithm: string): Promise<Member> {
  let payload;
  try {
    ({ payload } = await jwtVerify(token, secretKey(secret), {
      algorithms: [algorithm],
      requiredClaims: ["sub", "exp"],
    }));
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) throw invalidToken("the token has expired.");
    if (err instanceof joseErrors.JWTClaimValidationFailed)
      throw invalidToken(`claim '${err.claim}' is missing or invalid.`);
    throw invalidToken("the signature or format is not valid.");
  }
  const { sub, project_id: projectId, role, name, email } = payload as Record<string, unknown>;
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

/** Signs a member token (the CLI and tests use it; the platform's own login issues real ones). */
export function signMemberToken(
  member: Member,
  secret: string,
  algorithm = "HS512",
  ttlSeconds = 300,
): Promise<string> {
  return new SignJWT({ project_id: member.projectId, role: member.role, name: member.name, email: member.email })
    .setProtectedHeader({ alg: algorithm })
    .setSubject(member.userId)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
    .sign(secretKey(secret));
}
