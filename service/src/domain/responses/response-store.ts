/**
 * Stored responses in the metadata store (migration 008), scoped to a project: an id of another
 * project is as unknown as one never stored. `conversation` walks `previous_response_id` links in
 * one recursive query, bounded in depth and in bytes, so any replica rebuilds the same history.
 * A response older than the retention is as unknown as a deleted one on every read, judged by the
 * database's clock so all replicas agree; `deleteExpired` removes such rows (retention-sweep.ts).
 */
import type { Db } from "../../store/db.js";
import type { ContentPart, InputItem, OutputItem, ResponseObject } from "./types.js";

/** The most responses one conversation chains (OpenAI states no bound; a client loop must not walk forever). */
export const MAX_CHAIN_DEPTH = 256;
/** The most stored JSON one conversation rebuilds, in bytes: what a request may carry upstream at most. */
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
}

export class ResponseStore {
  private readonly db: Db;
  /** SQL true for a row still within the retention (`r.` prefixed where the query aliases the table). */
  private readonly live: (table?: string) => string;
  private readonly cutoff?: string;
  constructor(db: Db, opts: ResponseStoreOptions = {}) {
    this.db = db;
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
    await this.db.query(
      "INSERT INTO responses (id, project_id, previous_response_id, created_at, input_items, response, bytes) VALUES ($1, $2, $3, to_timestamp($4), $5, $6, $7)",
      [
        response.id,
        projectId,
        response.previous_response_id,
        response.created_at,
        input,
        body,
        Buffer.byteLength(input) + Buffer.byteLength(body),
      ],
    );
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
      `DELETE FROM responses WHERE project_id = $1 AND id = $2 RETURNING ${this.live()} AS live`,
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
    const { rowCount } = await this.db.query(
      `DELETE FROM responses WHERE id IN (
         SELECT id FROM responses WHERE created_at <= ${this.cutoff} ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED)`,
      [limit],
    );
    return rowCount;
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
    if (bytes > MAX_CHAIN_BYTES)
      throw new ConversationTooLong(`the conversation's stored items exceed ${MAX_CHAIN_BYTES} bytes`);
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
