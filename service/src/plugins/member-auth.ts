/** Key management routes: a valid member token (domain/member-token.ts) for the project in the URL. */
import type { FastifyRequest } from "fastify";
import { forbidden, invalidToken } from "../errors.js";
import { scopeOf, verifyMemberToken, type Member, type Role } from "../domain/member-token.js";
import { bearerToken } from "./api-key-auth.js";

/** onRequest hook: a valid member token for the project in the URL. */
export async function requireMember(request: FastifyRequest): Promise<void> {
  const token = bearerToken(request);
  if (!token) throw invalidToken("send a member token as 'Authorization: Bearer <JWT>'.");
  const { config } = request.server;
  const member = await verifyMemberToken(token, config.jwtSecret, scopeOf(config));
  // A hook serves every route of its context: the project id is read from whatever params there are.
  const params: unknown = request.params;
  const projectId =
    params && typeof params === "object" && "project_id" in params ? String(params.project_id) : undefined;
  if (projectId !== undefined && projectId !== member.projectId) {
    throw forbidden(`Your token is for project '${member.projectId}', not '${projectId}'.`);
  }
  request.member = member;
}

/** Throws 403 unless the member has one of `roles`. */
export function assertRole(member: Member, roles: readonly Role[], action: string): void {
  if (!roles.includes(member.role)) {
    throw forbidden(`Only project ${roles.join(" or ")}s can ${action}; your role is '${member.role}'.`);
  }
}
