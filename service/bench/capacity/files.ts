/**
 * Capacity dimension "files in a project": 1k → 10k → 50k text files of one passage each, written
 * by generate_series in the server with their full-text index. Timed: the files agent's answer
 * (a chat completion whose every answer is a search) and the MCP `search_files` tool, for a
 * question matching one file (its own word), and the agent for a question matching 1% of the files
 * (every matching passage is ranked, so that one grows with the files by design).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Caller } from "./http.js";
import { printCurve, type Point } from "./curve.js";
import { measurePoint, relationMb, settleTables, startOnScratchDatabase } from "./store-service.js";

/** About one passage of prose (the indexer cuts at 1,200 characters), shared by every file. */
const BODY = Array.from(
  { length: 14 },
  (_, i) =>
    `The ${["cluster", "replica", "gateway", "storage", "network", "service", "upgrade"][i % 7]} handles each request with care, keeps a window of answers, and reports its state to the platform.`,
).join(" ");

export async function run(sizes: number[], samples: number): Promise<boolean> {
  const s = await startOnScratchDatabase([{ id: "files", kind: "files", max_results: 3 }]);
  const caller = new Caller(s.service.url);
  const mcp = new Client({ name: "agentport-capacity", version: "1.0.0" });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${s.service.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${s.key}` } },
    }),
  );
  const curves = { agent: [] as Point[], mcp: [] as Point[], agentCommon: [] as Point[] };
  let stored = 0;
  try {
    for (const size of sizes) {
      await s.sql.query(
        `WITH n AS (SELECT i, 'file-' || lpad(to_hex(i), 16, '0') || 'b0b0b0b0b0b0b0b0' AS id FROM generate_series($1::int, $2::int) AS i),
         f AS (INSERT INTO files (id, project_id, filename, purpose, bytes, mime_type, sha256, blob_key, created_at)
               SELECT id, 'default', 'notes-' || i || '.txt', 'assistants', $3, 'text/plain', sha256(int4send(i)), 'bench/' || id, now() FROM n)
         INSERT INTO file_chunks (file_id, project_id, ord, content, tsv)
         SELECT id, 'default', 0, c, to_tsvector('english', c)
           FROM (SELECT id, $4 || ' Zephyr' || i || ' topic' || (i % 100) || '.' AS c FROM n) AS t`,
        [stored + 1, size, BODY.length + 20, BODY],
      );
      stored = size;
      await settleTables(s.sql);
      const word = (i: number) => `zephyr${1 + ((Math.abs(i) * 7919) % size)}`;
      const ask = (question: string) =>
        caller.call("/v1/chat/completions", s.key, {
          model: "agentport/files",
          messages: [{ role: "user", content: question }],
        });
      curves.agent.push(await measurePoint(s, size, samples, (i) => ask(`Where is ${word(i)}?`)));
      curves.mcp.push(
        await measurePoint(s, size, samples, async (i) => {
          const r = await mcp.callTool({ name: "search_files", arguments: { query: word(i + 1), limit: 3 } });
          if (r.isError) throw new Error(`search_files failed: ${JSON.stringify(r.content)}`);
        }),
      );
      curves.agentCommon.push(
        await measurePoint(s, size, Math.ceil(samples / 4), (i) => ask(`What about topic${Math.abs(i) % 100}?`)),
      );
      const mb = await relationMb(s.sql, "file_chunks");
      console.log(
        `    (${size} files: ${(size / 100).toFixed(0)} match a 1% question; file_chunks ${mb.toFixed(1)} MB)`,
      );
    }
  } finally {
    await mcp.close().catch(() => {});
    await caller.close();
    await s.stop();
  }
  const a = printCurve("files agent, a question matching one file", "files", curves.agent, "the service's RSS");
  const b = printCurve("MCP search_files, matching one file", "files", curves.mcp, "the service's RSS");
  printCurve(
    "files agent, a question matching 1% of the files (ranks them all)",
    "files",
    curves.agentCommon,
    "the service's RSS",
    "its matches are 1% of the files, and every one is ranked",
  );
  return a && b;
}
