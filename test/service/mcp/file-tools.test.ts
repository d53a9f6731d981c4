/** The file tools over MCP: upload, list, read (paged, text only), search; failures as isError results. */
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { buildTestApp, type TestApp } from "../../helpers/app.js";
import { bearer, firstText, listen, streamableClient } from "../../helpers/mcp.js";

let t: TestApp;
let client: Client;
beforeAll(async () => {
  t = await buildTestApp("pglite", { FILE_MAX_BYTES: "4k" });
  const base = await listen(t);
  const { secret } = await t.createKey();
  ({ client } = await streamableClient(`${base}/mcp`, bearer(secret)));
});
afterAll(async () => {
  await client.close();
  await t.close();
});

async function call(name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  return { result, json: result.isError ? undefined : JSON.parse(firstText(result)) };
}

describe("MCP file tools", () => {
  let fileId: string;
  // 3-byte characters make byte windows land inside them.
  const text = "Quarterly zebra report.\n" + "€".repeat(100) + "\nThe aardvark budget is 42.\n";

  it("uploads a text file and lists it", async () => {
    const { result, json } = await call("upload_text_file", { filename: "report.md", text });
    expect(result.isError).toBeFalsy();
    expect(json.file).toMatchObject({ filename: "report.md", bytes: Buffer.byteLength(text), purpose: "assistants" });
    fileId = json.file.id;
    expect(result.structuredContent).toEqual(json);

    const listed = await call("list_files", {});
    expect(listed.json.files.map((f: { id: string }) => f.id)).toContain(fileId);
    expect(listed.json.has_more).toBe(false);
    // The same file through the HTTP API.
    expect((await t.app.files.get("default", fileId))?.filename).toBe("report.md");
  });

  it("pages through the list with after", async () => {
    await call("upload_text_file", { filename: "second.txt", text: "second" });
    const first = await call("list_files", { limit: 1 });
    expect(first.json.files).toHaveLength(1);
    expect(first.json.has_more).toBe(true);
    const next = await call("list_files", { limit: 1, after: first.json.next_after });
    expect(next.json.files[0].id).not.toBe(first.json.files[0].id);
  });

  it("reads a file whole, and in windows that never split a character", async () => {
    const whole = await call("read_file", { file_id: fileId });
    expect(whole.json).toMatchObject({
      file_id: fileId,
      offset: 0,
      next_offset: null,
      total_bytes: Buffer.byteLength(text),
      text,
    });

    let offset: number | null = 0;
    let joined = "";
    let windows = 0;
    while (offset !== null) {
      const { json } = await call("read_file", { file_id: fileId, offset, max_bytes: 17 });
      expect(json.text.length).toBeGreaterThan(0);
      joined += json.text;
      offset = json.next_offset;
      windows++;
    }
    expect(joined).toBe(text);
    expect(windows).toBeGreaterThan(10);
  });

  it("searches the files with the same ranked retrieval the files agent answers from", async () => {
    const { json } = await call("search_files", { query: "aardvark budget" });
    expect(json.results[0]).toMatchObject({ file_id: fileId, filename: "report.md" });
    expect(json.results[0].snippet).toContain("aardvark");
    const agent = await client.callTool({ name: "ask_chat_latest", arguments: { question: "aardvark budget" } });
    expect(firstText(agent)).toContain(fileId);
  });

  it("answers bad requests as tool results with isError", async () => {
    const missing = await call("read_file", { file_id: "file-nope" });
    expect(missing.result.isError).toBe(true);
    expect(firstText(missing.result)).toMatch(/No file with id 'file-nope'/);

    const pastEnd = await call("read_file", { file_id: fileId, offset: 10_000 });
    expect(pastEnd.result.isError).toBe(true);

    const binary = await t.app.files.create("default", {
      filename: "blob.bin",
      purpose: "assistants",
      body: Readable.from([Buffer.from([0, 1, 2, 255])]),
    });
    const notText = await call("read_file", { file_id: binary.id });
    expect(notText.result.isError).toBe(true);
    expect(firstText(notText.result)).toMatch(/binary/);

    const tooBig = await call("upload_text_file", { filename: "big.txt", text: "x".repeat(5000) });
    expect(tooBig.result.isError).toBe(true);
    expect(firstText(tooBig.result)).toMatch(/limit is 4096 bytes/);

    const badPurpose = await call("upload_text_file", { filename: "a.txt", text: "a", purpose: "nonsense" });
    expect(badPurpose.result.isError).toBe(true);
  });

  it("sees only the key's project", async () => {
    const other = await t.createKey("other-project");
    const { client: otherClient } = await streamableClient(t.config.publicUrl + "/mcp", bearer(other.secret));
    const listed = await otherClient.callTool({ name: "list_files", arguments: {} });
    expect(JSON.parse(firstText(listed)).files).toEqual([]);
    const read = await otherClient.callTool({ name: "read_file", arguments: { file_id: fileId } });
    expect(read.isError).toBe(true);
    await otherClient.close();
  });
});
