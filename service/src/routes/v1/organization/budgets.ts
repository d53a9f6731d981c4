/**
 * A project's budget: GET (every member), PUT and DELETE (owners):
 * /v1/organization/projects/{project_id}/budget. `{limit_usd, period}`; the answer shows what the
 * project spent in the current period and when it resets. Without a budget of its own the
 * deployment's default (BUDGET_PROJECT_USD) applies, and GET says so.
 */
import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { notFound } from "../../../errors.js";
import { assertRole } from "../../../plugins/member-auth.js";
import { budgetOf, budgetView, spendView } from "../../../domain/spend/budget-fields.js";
import type { ProjectBudget } from "../../../domain/spend/project-budgets.js";
import { responses } from "../../responses.js";

const ProjectParams = Type.Object({ project_id: Type.String({ minLength: 1, maxLength: 200 }) });
const BudgetBody = Type.Object(
  { limit_usd: Type.Number(), period: Type.String({ maxLength: 20 }) },
  { additionalProperties: false },
);
const ProjectBudgetObject = Type.Object({
  object: Type.Literal("organization.project.budget"),
  project_id: Type.String(),
  budget: Type.Union([Type.Object({ limit_usd: Type.Number(), period: Type.String() }), Type.Null()]),
  /** true: the deployment's default applies (no budget of the project's own). */
  default: Type.Boolean(),
  spent_usd: Type.Number(),
  resets_at: Type.Union([Type.Integer(), Type.Null()]),
});

export default async function budgetRoutes(instance: FastifyInstance) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const path = "/projects/:project_id/budget";
  const view = async (projectId: string, budget: ProjectBudget | undefined) => ({
    object: "organization.project.budget" as const,
    project_id: projectId,
    budget: budgetView(budget),
    default: budget?.isDefault ?? false,
    ...(await spendView(app.db, { projectId }, budget, budget?.anchorMs ?? 0)),
  });

  app.get(
    path,
    { schema: { params: ProjectParams, response: responses({ 200: ProjectBudgetObject }) } },
    async (request) => {
      await app.usage.flush().catch(() => {});
      return view(request.params.project_id, await app.projectBudgets.get(request.params.project_id));
    },
  );

  app.put(
    path,
    { schema: { params: ProjectParams, body: BudgetBody, response: responses({ 200: ProjectBudgetObject }) } },
    async (request) => {
      assertRole(request.member, ["owner"], "set the project's budget");
      const { limitMicros, period } = budgetOf(request.body, "budget");
      const budget = await app.projectBudgets.set(request.params.project_id, limitMicros, period);
      request.log.info({ projectId: request.params.project_id, limitMicros, period }, "project budget set");
      return view(request.params.project_id, budget);
    },
  );

  app.delete(
    path,
    { schema: { params: ProjectParams, response: responses({ 200: ProjectBudgetObject }) } },
    async (request) => {
      assertRole(request.member, ["owner"], "remove the project's budget");
      const { project_id } = request.params;
      if (!(await app.projectBudgets.delete(project_id)))
        throw notFound("budget of project", project_id, "project_id", "budget_not_found");
      request.log.info({ projectId: project_id }, "project budget removed");
      return view(project_id, await app.projectBudgets.get(project_id));
    },
  );
}
