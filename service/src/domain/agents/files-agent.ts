/**
 * `files`: answers offline from the project's uploaded text files by ranked retrieval, citing
 * file ids. Without a file search (no file store wired) it says so plainly.
 */
import type { FilesSpec } from "./agent-spec.js";
import { MAX_QUESTION_CHARS } from "../files/text-index.js";
import { lastUserText, pieces } from "./text.js";
import { tokenCounter } from "./tokens.js";
import type { Agent, AgentContext, AgentEvent, AgentInfo, ChatRequest, FileSearch, FileSearchHit } from "./types.js";

export interface FilesAgentOptions {
  /** The project's file search; without one the agent says that no files can be searched. */
  fileSearch: FileSearch | undefined;
  /** Sentence put first in every answer (the offline default agent says that no upstream is configured). */
  preface?: string;
}

function answer(query: string, hits: FileSearchHit[] | undefined): string {
  if (!hits) return "File search is not available on this server, so I have no files to search.";
  if (!query.trim()) return "Ask a question and I will look for the answer in this project's files.";
  if (hits.length === 0) return `I found nothing in this project's files that matches "${query.trim().slice(0, 200)}".`;
  const cited = hits.map((h, i) => `[${i + 1}] ${h.filename} (${h.fileId}): ${h.snippet.replace(/\s+/g, " ").trim()}`);
  return `From this project's files:\n\n${cited.join("\n")}`;
}

export function filesAgent(info: AgentInfo, spec: FilesSpec, opts: FilesAgentOptions): Agent {
  const limit = spec.max_results ?? 3;
  return {
    ...info,
    async *run(request: ChatRequest, ctx: AgentContext): AsyncGenerator<AgentEvent> {
      // Trimmed first: nothing past what a search reads is scanned.
      const query = lastUserText(request.messages, MAX_QUESTION_CHARS);
      const search = opts.fileSearch;
      const tokens = await tokenCounter();
      const hits = search && query.trim() ? await search(ctx.projectId, query, limit) : search ? [] : undefined;
      const text = (opts.preface ? opts.preface + "\n\n" : "") + answer(query, hits);
      const budget = request.max_tokens ?? Infinity;
      let used = 0;
      let sent = "";
      let truncated = false;
      for (const piece of pieces(text)) {
        // The budget is spent piece by piece; the usage counts the text sent as one (BPE merges across pieces).
        const cost = tokens.text(piece);
        if (used + cost > budget) {
          truncated = true;
          break;
        }
        used += cost;
        sent += piece;
        yield { type: "content", text: piece };
      }
      yield { type: "usage", promptTokens: await tokens.prompt(request.messages), completionTokens: tokens.text(sent) };
      yield { type: "finish", reason: truncated ? "length" : "stop" };
    },
  };
}
