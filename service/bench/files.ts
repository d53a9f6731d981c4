/**
 * Files bench. A 256 MiB file is uploaded to the service (local blob store, in a child process)
 * and downloaded back to disk; each is compared with a plain stream copy of the same bytes to
 * disk in the same run (goal ≥ 0.6). The child's RSS is sampled every few milliseconds: its
 * growth during the upload must stay under 64 MiB, whatever the file size.
 */
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Agent, request } from "undici";
import { startChild, type Child } from "./lib/children.js";
import { fixed, table } from "../src/cli/table.js";
import type { FilesServer, RssMessage, RssReport } from "./files-server.js";

const MiB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_FILE_MIB ?? 256) * MiB;
const ROUNDS = Number(process.env.BENCH_FILE_ROUNDS ?? 3);
const THROUGHPUT_GOAL = 0.6;
const RSS_GOAL = 64 * MiB;
const BOUNDARY = "----agentport-bench";

async function writeSource(path: string): Promise<string> {
  const hash = createHash("sha256");
  const out = createWriteStream(path);
  for (let written = 0; written < SIZE; written += MiB) {
    const chunk = randomBytes(Math.min(MiB, SIZE - written));
    hash.update(chunk);
    if (!out.write(chunk)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
  return hash.digest("hex");
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(path), hash);
  return hash.digest("hex");
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** The form the openai SDKs send: the file part first, the purpose after it. */
async function* form(path: string) {
  yield Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  yield* createReadStream(path, { highWaterMark: 256 * 1024 });
  yield Buffer.from(
    `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nassistants\r\n--${BOUNDARY}--\r\n`,
  );
}
const formLength = (size: number) => {
  let n = size;
  n += Buffer.byteLength(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  n += Buffer.byteLength(
    `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nassistants\r\n--${BOUNDARY}--\r\n`,
  );
  return n;
};

function rss(child: Child<FilesServer>, m: RssMessage): Promise<RssReport> {
  const reply = once(child.process, "message") as Promise<[RssReport]>;
  child.process.send(m);
  return reply.then(([r]) => r);
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "agentport-bench-copy-"));
  const child = await startChild<FilesServer>(new URL("./files-server.ts", import.meta.url));
  const pool = new Agent({ connections: 4 });
  const { url, key } = child.info;
  const auth = { authorization: `Bearer ${key}` };
  try {
    const source = join(dir, "source.bin");
    const sourceSha = await writeSource(source);
    console.log(`file: ${SIZE / MiB} MiB of random bytes, ${ROUNDS} rounds (best of each reported)`);

    const upload = async (path: string, size: number) => {
      const res = await request(`${url}/v1/files`, {
        method: "POST",
        headers: {
          ...auth,
          "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
          "content-length": String(formLength(size)),
        },
        body: Readable.from(form(path)),
        dispatcher: pool,
      });
      const body = (await res.body.json()) as { id: string; bytes: number };
      if (res.statusCode !== 200 || body.bytes !== size)
        throw new Error(`upload failed: ${res.statusCode} ${JSON.stringify(body)}`);
      return body.id;
    };
    const download = async (id: string, path: string) => {
      const res = await request(`${url}/v1/files/${id}/content`, { headers: auth, dispatcher: pool });
      if (res.statusCode !== 200) throw new Error(`download failed: ${res.statusCode}`);
      await pipeline(res.body, createWriteStream(path));
    };
    const remove = (id: string) =>
      request(`${url}/v1/files/${id}`, { method: "DELETE", headers: auth, dispatcher: pool }).then((r) =>
        r.body.dump(),
      );

    // Warm-up: the first upload pays for lazy initialisation, not for the file's size.
    const warm = join(dir, "warm.bin");
    await pipeline(createReadStream(source, { end: MiB - 1 }), createWriteStream(warm));
    await remove(await upload(warm, MiB));

    const best = { copy: Infinity, durableCopy: Infinity, up: Infinity, down: Infinity, upRss: 0, downRss: 0, base: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      best.copy = Math.min(
        best.copy,
        await timed(() => pipeline(createReadStream(source), createWriteStream(join(dir, "copy.bin")))),
      );
      rmSync(join(dir, "copy.bin"));
      // The service syncs a blob before it becomes visible; this is the same copy made durable.
      best.durableCopy = Math.min(
        best.durableCopy,
        await timed(async () => {
          await pipeline(createReadStream(source), createWriteStream(join(dir, "copy.bin")));
          const fh = await open(join(dir, "copy.bin"), "r+");
          await fh.sync();
          await fh.close();
        }),
      );
      rmSync(join(dir, "copy.bin"));

      const before = await rss(child, "reset");
      let id = "";
      best.up = Math.min(best.up, await timed(async () => (id = await upload(source, SIZE))));
      const afterUp = await rss(child, "peak");
      best.upRss = Math.max(best.upRss, afterUp.peak - before.base);
      best.base = before.base;

      await rss(child, "reset");
      const target = join(dir, "download.bin");
      best.down = Math.min(best.down, await timed(() => download(id, target)));
      const afterDown = await rss(child, "peak");
      best.downRss = Math.max(best.downRss, afterDown.peak - afterDown.base);
      if (statSync(target).size !== SIZE || (await sha256Of(target)) !== sourceSha)
        throw new Error("downloaded bytes differ from the upload");
      rmSync(target);
      await remove(id);
    }

    const mibps = (s: number) => SIZE / MiB / s;
    const ratio = (s: number) => best.copy / s;
    const verdict = (ok: boolean) => (ok ? "ok" : "MISSED");
    console.log(
      table(
        ["", "MiB/s", "seconds", "ratio to copy", "goal", ""],
        [
          ["plain stream copy to disk", fixed(mibps(best.copy)), fixed(best.copy, 2), "1.00", "", ""],
          [
            "  same copy + fsync (durable)",
            fixed(mibps(best.durableCopy)),
            fixed(best.durableCopy, 2),
            fixed(ratio(best.durableCopy), 2),
            "",
            "",
          ],
          [
            "upload through the service",
            fixed(mibps(best.up)),
            fixed(best.up, 2),
            fixed(ratio(best.up), 2),
            `≥ ${THROUGHPUT_GOAL}`,
            verdict(ratio(best.up) >= THROUGHPUT_GOAL),
          ],
          [
            "download through the service",
            fixed(mibps(best.down)),
            fixed(best.down, 2),
            fixed(ratio(best.down), 2),
            `≥ ${THROUGHPUT_GOAL}`,
            verdict(ratio(best.down) >= THROUGHPUT_GOAL),
          ],
        ],
      ),
    );
    console.log(
      table(
        ["service RSS", "MiB"],
        [
          ["before upload", fixed(best.base / MiB, 1)],
          [
            `growth during upload (goal < ${RSS_GOAL / MiB})`,
            `${fixed(best.upRss / MiB, 1)} ${verdict(best.upRss < RSS_GOAL)}`,
          ],
          ["growth during download", fixed(best.downRss / MiB, 1)],
        ],
      ),
    );
    console.log("downloaded bytes match the upload (SHA-256)");
  } finally {
    await pool.close();
    await child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
