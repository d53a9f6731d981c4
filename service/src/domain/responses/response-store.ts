/**
 * Stored responses in the metadata store (migration 008), scoped to a project: an id of another
 * project is as unknown as one never stored. `conversation` walks `previous_response_id` links in
 * one recursive query, bounded in depth and in bytes, so any replica rebuilds the same history.
 * A response older than the retention is as unknown as a deleted one on every read, judged by the
 * database's clock so all replicas agree; `deleteExpired` removes such rows (retention-sweep.ts).
 * Each project's stored bytes are counted beside the rows (migration 010), in the same statement
 * or transaction, for the per-project cap (RESPONSES_PROJECT_MAX_BYTES) and the metrics.
 */
import type { Db } from "../../store/db.js";
import type { ContentPart, InputItem, OutputItem, ResponseObject } from "./types.js";

/** The most responses one conversation chains (OpenAI states no bound; a client loop must not walk forever). */
export const MAX_CHAIN_DEPTH = 256;
/**
 * The most stored JSON one conversation rebuilds by default, in bytes (RESPONSES_CHAIN_MAX_BYTES).
 * The rebuild (read, parse, translate, serialize for the upstream) runs on the event loop at about
 * 30–50 ms per MiB: 29 MiB chains held /health for seconds with 8 such requests in parallel. At
 * 1 MiB (some 250k tokens of English, more than most models' context) 8 at once cost the loop
 * about what 8 ordinary 1 MiB requests do (service/bench/chain.ts measures it).
 */
export const DEFAULT_CHAIN_MAX_BYTES = 1024 * 1024;
/** The largest RESPONSES_CHAIN_MAX_BYTES: what an upstream answer may be (MAX_ANSWER_BYTES). */
export const MAX_CHAIN_BYTES = 32 * 1024 * 1024;

/** Why a conversation cannot be rebuilt. */
export class ConversationTooLong extends Error {}

interface Row {
  id: string;
  input_items: string;
  response: string;
}

export interface ResponseStoreOptions {
  /** Days a response is kept after its creation; 0 (the default): forever. */
  retentionDays?: number;
  /** The most stored bytes one conversation rebuilds (RESPONSES_CHAIN_MAX_BYTES); default DEFAULT_CHAIN_MAX_BYTES. */
  chainMaxBytes?: number;
}

export class ResponseStore {
  private readonly db: Db;
  /** SQL true for a row still within the retention (`r.` prefixed where the query aliases the table). */
  private readonly live: (table?: string) => string;
  private readonly cutoff?: string;
  private readonly chainMaxBytes: number;
  constructor(db: Db, opts: ResponseStoreOptions = {}) {
    this.db = db;
    this.chainMaxBytes = opts.chainMaxBytes ?? DEFAULT_CHAIN_MAX_BYTES;
    const days = opts.retentionDays ?? 0;
    if (!Number.isSafeInteger(days) || days < 0)
      throw new RangeError(`retentionDays must be a whole number of days, not ${days}`);
    // Inlined (a checked integer): every query keeps its own parameters, and the planner sees a constant.
    this.cutoff = days > 0 ? `now() - interval '${days} days'` : undefined;
    this.live = (table = "") => (this.cutoff ? `${table}created_at > ${this.cutoff}` : "true");
  }

  async save(projectId: string, response: ResponseObject, items: readonly InputItem[]): Promise<void> {
    const input = JSON.stringify(items);
    const body = JSON.stringify(response);
    const bytes = Buffer.byteLength(input) + Buffer.byteLength(body);
    await this.db.transaction(async (tx) => {
      await tx.query(
        "INSERT INTO responses (id, project_id, previous_response_id, created_at, input_items, response, bytes) VALUES ($1, $2, $3, to_timestamp($4), $5, $6, $7)",
        [response.id, projectId, response.previous_response_id, response.created_at, input, body, bytes],
      );
      await tx.query(
        `INSERT INTO response_project_bytes (project_id, bytes) VALUES ($1, $2)
         ON CONFLICT (project_id) DO UPDATE SET bytes = response_project_bytes.bytes + EXCLUDED.bytes`,
        [projectId, bytes],
      );
    });
  }

  /** Bytes the project's stored responses take (expired ones count until the sweep removes them). */
  async storedBytes(projectId: string): Promise<number> {
    const { rows } = await this.db.query<{ bytes: string }>(
      "SELECT bytes::text AS bytes FROM response_project_bytes WHERE project_id = $1",
      [projectId],
    );
    return Number(rows[0]?.bytes ?? 0);
  }

  /** The projects storing the most bytes, largest first (the metrics; at most `limit`). */
  async largestProjects(limit: number): Promise<Array<{ projectId: string; bytes: number }>> {
    const { rows } = await this.db.query<{ project_id: string; bytes: string }>(
      "SELECT project_id, bytes::text AS bytes FROM response_project_bytes WHERE bytes > 0 ORDER BY bytes DESC LIMIT $1",
      [limit],
    );
    return rows.map((r) => ({ projectId: r.project_id, bytes: Number(r.bytes) }));
  }

  async get(projectId: string, id: string): Promise<ResponseObject | undefined> {
    const { rows } = await this.db.query<{ response: string }>(
      `SELECT response FROM responses WHERE project_id = $1 AND id = $2 AND ${this.live()}`,
      [projectId, id],
    );
    return rows[0] && (JSON.parse(rows[0].response) as ResponseObject);
  }

  async inputItems(projectId: string, id: string): Promise<InputItem[] | undefined> {
    const { rows } = await this.db.query<{ input_items: string }>(
      `SELECT input_items FROM responses WHERE project_id = $1 AND id = $2 AND ${this.live()}`,
      [projectId, id],
    );
    return rows[0] && (JSON.parse(rows[0].input_items) as InputItem[]);
  }

  /** True when it was there to delete; an expired row goes too, but was not there for the caller. */
  async delete(projectId: string, id: string): Promise<boolean> {
    const { rows } = await this.db.query<{ live: boolean }>(
      `WITH gone AS (DELETE FROM responses WHERE project_id = $1 AND id = $2 RETURNING bytes, ${this.live()} AS live),
            counted AS (UPDATE response_project_bytes SET bytes = bytes - (SELECT sum(bytes) FROM gone)
                         WHERE project_id = $1 AND EXISTS (SELECT 1 FROM gone))
       SELECT live FROM gone`,
      [projectId, id],
    );
    return rows[0]?.live === true;
  }

  /**
   * Removes at most `limit` expired responses, oldest first; the number removed. Replicas sweeping
   * at once take different rows (SKIP LOCKED) instead of waiting on each other's.
   */
  async deleteExpired(limit: number): Promise<number> {
    if (!this.cutoff) return 0;
    const { rows } = await this.db.query<{ removed: string }>(
      `WITH gone AS (
         DELETE FROM responses WHERE id IN (
           SELECT id FROM responses WHERE created_at <= ${this.cutoff} ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED)
         RETURNING project_id, bytes),
       counted AS (
         UPDATE response_project_bytes t SET bytes = t.bytes - g.bytes
           FROM (SELECT project_id, sum(bytes) AS bytes FROM gone GROUP BY project_id) g
          WHERE t.project_id = g.project_id)
       SELECT count(*)::text AS removed FROM gone`,
      [limit],
    );
    return Number(rows[0].removed);
  }

  /**
   * The conversation up to and including response `id`: each response's input items then its
   * output, oldest first; undefined when `id` is not stored in the project. A response past
   * MAX_CHAIN_DEPTH back is not read; a chain longer or larger than the bounds is refused.
   */
  async conversation(projectId: string, id: string): Promise<InputItem[] | undefined> {
    // The links and sizes first: the texts are read only for a chain within the bounds.
    const { rows: links } = await this.db.query<{ id: string; bytes: number }>(
      `WITH RECURSIVE chain AS (
         SELECT id, previous_response_id, bytes, 1 AS depth FROM responses WHERE project_id = $1 AND id = $2 AND ${this.live()}
         UNION ALL
         SELECT r.id, r.previous_response_id, r.bytes, c.depth + 1
           FROM responses r JOIN chain c ON r.id = c.previous_response_id AND r.project_id = $1
          WHERE c.depth <= $3 AND ${this.live("r.")}
       )
       SELECT id, bytes FROM chain ORDER BY depth DESC`,
      [projectId, id, MAX_CHAIN_DEPTH],
    );
    if (!links.length) return undefined;
    if (links.length > MAX_CHAIN_DEPTH)
      throw new ConversationTooLong(`the conversation chains more than ${MAX_CHAIN_DEPTH} responses`);
    const bytes = links.reduce((sum, link) => sum + Number(link.bytes), 0);
    if (bytes > this.chainMaxBytes)
      throw new ConversationTooLong(
        `the conversation's stored items take ${bytes} bytes, over the ${this.chainMaxBytes} a continuation may rebuild (RESPONSES_CHAIN_MAX_BYTES)`,
      );
    const { rows } = await this.db.query<Row>(
      `SELECT id, input_items, response FROM responses WHERE project_id = $1 AND id = ANY($2) AND ${this.live()}`,
      [projectId, links.map((l) => l.id)],
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    const items: InputItem[] = [];
    for (const link of links) {
      const row = byId.get(link.id);
      if (!row) continue; // deleted in between: the conversation goes on from what is stored
      items.push(...(JSON.parse(row.input_items) as InputItem[]));
      for (const output of (JSON.parse(row.response) as ResponseObject).output) {
        const item = asInput(output);
        if (item) items.push(item);
      }
    }
    return items;
  }
}

/**
 * An answer's output item as the next turn's input carries it; other kinds an upstream's own
 * Responses API may answer with (reasoning, its built-in tools' calls) are not carried over.
 */
function asInput(item: OutputItem): InputItem | undefined {
  if (item.type === "function_call")
    return {
      type: "function_call",
      id: item.id,
      call_id: item.call_id,
      name: item.name,
      arguments: item.arguments,
      status: item.status,
    };
  if (item.type !== "message" || !Array.isArray(item.content)) return undefined;
  const content = item.content.flatMap((p): ContentPart[] =>
    p.type === "refusal" ? [p] : p.type === "output_text" ? [{ type: "output_text", text: p.text }] : [],
  );
  return { type: "message", role: "assistant", content, id: item.id, status: item.status };
}
