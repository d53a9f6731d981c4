/** The CLI's operations, either over the running server's HTTP API or on the store itself. */
import type { ServiceConfig } from "../config.js";
import { ApiKeys } from "../domain/api-keys.js";
import { createdApiKey, projectApiKey } from "../domain/key-presentation.js";
import { scopeOf, signMemberToken } from "../domain/member-token.js";
import { openStore, pgliteDirFor } from "../store/open.js";
import { cursorTime, usageReport, type UsagePage, type UsageResult } from "../domain/usage/usage-report.js";
import { costReport, type CostPage, type CostResult } from "../domain/spend/cost-report.js";
import { ProjectBudgets } from "../domain/spend/project-budgets.js";
import { budgetOf, budgetView, refuseAboveProject, spendView, type SpendView } from "../domain/spend/budget-fields.js";
import { ApiError } from "../errors.js";

export type CreatedKey = ReturnType<typeof createdApiKey>;
export type ListedKey = ReturnType<typeof projectApiKey>;

/** What `create` may set besides the name, as the API's `expires_at` and `rate_limits` do. */
export interface NewKeyOptions {
  /** Unix seconds. */
  expiresAt?: number;
  /** This key's own requests and tokens per minute. */
  rpm?: number;
  tpm?: number;
  /** This key's budget: USD per period (`30d`, `1mo`, `total`). */
  budget?: { limit_usd: number; period: string };
}

/** A project's budget as `keys budget` shows it. */
export interface ProjectBudgetView extends SpendView {
  budget: { limit_usd: number; period: string } | null;
  default: boolean;
}

export interface KeyOps {
  create(project: string, name: string, options: NewKeyOptions): Promise<CreatedKey>;
  list(project: string): Promise<ListedKey[]>;
  remove(project: string, id: string): Promise<boolean>;
  /** Completions usage since `startTime` (Unix seconds) per key and model, one result per day. */
  usage(project: string, startTime: number): Promise<UsageResult[]>;
  /** Spend since `startTime` per key and model, one result per day. */
  costs(project: string, startTime: number): Promise<CostResult[]>;
  /** The project's budget; with `budget`, sets it first; with null, removes it first. */
  budget(project: string, budget?: { limit_usd: number; period: string } | null): Promise<ProjectBudgetView>;
  close(): Promise<void>;
}

/** Days a usage page holds at most (OpenAI's limit for 1d buckets). */
const DAYS_A_PAGE = 31;
const results = (page: UsagePage) => page.data.flatMap((bucket) => bucket.results);
const costResults = (page: CostPage) => page.data.flatMap((bucket) => bucket.results);

/** An API refusal (a budget above its project's, a bad period) as the CLI's error. */
function plainError<T>(run: () => T): T {
  try {
    return run();
  } catch (err) {
    throw err instanceof ApiError ? new Error(err.message) : err;
  }
}

const CLI_USER = "cli";

export function keysOverHttp(baseUrl: string, config: ServiceConfig): KeyOps {
  /** `path` is under /v1/organization; the member token is for `project`. */
  async function call(method: string, project: string, path: string, body?: unknown): Promise<Response> {
    const token = await signMemberToken(
      { userId: CLI_USER, projectId: project, role: "owner" },
      config.jwtSecret,
      scopeOf(config),
      60,
    );
    const res = await fetch(`${baseUrl}/v1/organization/${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!res.ok && res.status !== 404) {
      const err = (await res.json().catch(() => ({}))) as { error?: { message?: string } };
      throw new Error(`server answered ${res.status}: ${err.error?.message ?? res.statusText}`);
    }
    return res;
  }
  const keysPath = (project: string, rest = "") => `projects/${encodeURIComponent(project)}/api_keys${rest}`;
  return {
    async create(project, name, { expiresAt, rpm, tpm, budget }) {
      const limits = rpm !== undefined || tpm !== undefined ? { rate_limits: { rpm, tpm } } : {};
      const body = {
        name,
        ...(expiresAt !== undefined && { expires_at: expiresAt }),
        ...limits,
        ...(budget && { budget }),
      };
      return (await call("POST", project, keysPath(project), body)).json() as Promise<CreatedKey>;
    },
    async list(project) {
      const all: ListedKey[] = [];
      let after = "";
      for (;;) {
        const page = (await (
          await call("GET", project, keysPath(project, `?limit=100${after && `&after=${after}`}`))
        ).json()) as {
          data: ListedKey[];
          has_more: boolean;
          last_id: string;
        };
        all.push(...page.data);
        if (!page.has_more) return all;
        after = page.last_id;
      }
    },
    remove: async (project, id) => (await call("DELETE", project, keysPath(project, `/${encodeURIComponent(id)}`))).ok,
    async usage(project, startTime) {
      const all: UsageResult[] = [];
      const query = `usage/completions?start_time=${startTime}&bucket_width=1d&group_by=api_key_id,model&limit=${DAYS_A_PAGE}`;
      for (let page: string | null = ""; page !== null;) {
        const answer = (await (await call("GET", project, query + (page && `&page=${page}`))).json()) as UsagePage;
        all.push(...results(answer));
        page = answer.next_page;
      }
      return all;
    },
    async costs(project, startTime) {
      const all: CostResult[] = [];
      const query = `costs?start_time=${startTime}&bucket_width=1d&group_by=api_key_id,model&limit=${DAYS_A_PAGE}`;
      for (let page: string | null = ""; page !== null;) {
        const answer = (await (await call("GET", project, query + (page && `&page=${page}`))).json()) as CostPage;
        all.push(...costResults(answer));
        page = answer.next_page;
      }
      return all;
    },
    async budget(project, budget) {
      const path = `projects/${encodeURIComponent(project)}/budget`;
      const method = budget ? "PUT" : budget === null ? "DELETE" : "GET";
      const res = await call(method, project, path, budget ?? undefined);
      if (res.status === 404) throw new Error(`project ${project} has no budget of its own`);
      return res.json() as Promise<ProjectBudgetView>;
    },
    close: async () => {},
  };
}

export async function keysOnStore(config: ServiceConfig): Promise<KeyOps> {
  const db = await openStore({
    databaseUrl: config.databaseUrl,
    databaseSchema: config.databaseSchema,
    pgliteDir: pgliteDirFor(config.dataDir),
  });
  const keys = new ApiKeys(db);
  const projectBudgets = new ProjectBudgets(db, config.budgets.project);
  const listed = async (k: Parameters<typeof projectApiKey>[0]) =>
    projectApiKey(
      k,
      await spendView(db, { projectId: k.projectId, keyId: k.id }, k.budget ?? undefined, k.createdAt.getTime()),
    );
  return {
    async create(project, name, { expiresAt, rpm, tpm, budget: asked }) {
      if (expiresAt !== undefined && expiresAt * 1000 <= Date.now())
        throw new Error(`--expires-at ${expiresAt} is not in the future`);
      const expires = expiresAt === undefined ? undefined : new Date(expiresAt * 1000);
      const budget = asked ? plainError(() => budgetOf(asked, "budget")) : config.budgets.key;
      const projectBudget = budget && (await projectBudgets.get(project));
      if (budget) plainError(() => refuseAboveProject(budget, projectBudget, "budget"));
      const { record, secret } = await keys.create({
        projectId: project,
        name,
        createdBy: CLI_USER,
        expiresAt: expires,
        rateLimitRpm: rpm,
        rateLimitTpm: tpm,
        budget,
      });
      return createdApiKey(record, secret, config.publicUrl, config.modelPrefix);
    },
    async list(project) {
      const all: ListedKey[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await keys.list(project, { after, limit: 100 });
        all.push(...(await Promise.all(page.data.map(listed))));
        if (!page.hasMore) return all;
        after = page.data.at(-1)!.id;
      }
    },
    // Deleting NOTIFYs the revocation, so replicas on a shared PostgreSQL forget the key at once.
    remove: (project, id) => keys.delete(project, id),
    async usage(projectId, startTime) {
      const all: UsageResult[] = [];
      const endTime = Math.floor(Date.now() / 1000) + 1;
      for (let from: number | undefined = startTime; from !== undefined;) {
        const page = await usageReport(db, {
          projectId,
          startTime: from,
          endTime,
          width: "1d",
          limit: DAYS_A_PAGE,
          groupBy: ["api_key_id", "model"],
        });
        all.push(...results(page));
        from = page.next_page === null ? undefined : cursorTime(page.next_page);
      }
      return all;
    },
    async costs(projectId, startTime) {
      const all: CostResult[] = [];
      const endTime = Math.floor(Date.now() / 1000) + 1;
      for (let from: number | undefined = startTime; from !== undefined;) {
        const page = await costReport(db, {
          projectId,
          startTime: from,
          endTime,
          width: "1d",
          limit: DAYS_A_PAGE,
          groupBy: ["api_key_id", "model"],
        });
        all.push(...costResults(page));
        from = page.next_page === null ? undefined : cursorTime(page.next_page);
      }
      return all;
    },
    async budget(project, asked) {
      if (asked) {
        const { limitMicros, period } = plainError(() => budgetOf(asked, "budget"));
        await projectBudgets.set(project, limitMicros, period);
      } else if (asked === null && !(await projectBudgets.delete(project)))
        throw new Error(`project ${project} has no budget of its own`);
      const budget = await projectBudgets.get(project);
      return {
        budget: budgetView(budget),
        default: budget?.isDefault ?? false,
        ...(await spendView(db, { projectId: project }, budget, budget?.anchorMs ?? 0)),
      };
    },
    close: () => db.close(),
  };
}
