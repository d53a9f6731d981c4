/**
 * Child of the streams section: on `{url, key, model, count}` it opens `count` chat streams at
 * once over as many connections, reads each to its end and checks it closed with `data: [DONE]`.
 * Reports `{open: true}` once every stream has its headers, then `{ok, failures, firstError, ms}`.
 */
import { performance } from "node:perf_hooks";
import { Agent, request } from "undici";

process.send!({ ready: true });
process.once("message", (m: { url: string; key: string; model: string; count: number }) => void openStreams(m));

async function openStreams(m: { url: string; key: string; model: string; count: number }): Promise<void> {
  const dispatcher = new Agent({ connections: m.count, headersTimeout: 60_000, bodyTimeout: 60_000 });
  const body = JSON.stringify({
    model: m.model,
    stream: true,
    messages: [{ role: "user", content: "Stream slowly." }],
  });
  const started = performance.now();
  let withHeaders = 0;
  let failures = 0;
  let firstError: string | undefined;
  const one = async () => {
    try {
      const res = await request(`${m.url}/v1/chat/completions`, {
        method: "POST",
        dispatcher,
        body,
        headers: { authorization: `Bearer ${m.key}`, "content-type": "application/json" },
      });
      if (++withHeaders === m.count) process.send!({ open: true });
      // The service's own words (an error envelope) say which limit answered, not just its status.
      if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}: ${(await res.body.text()).slice(0, 300)}`);
      let tail = "";
      for await (const chunk of res.body) tail = (tail + String(chunk)).slice(-64); // only the end matters
      if (!tail.trimEnd().endsWith("data: [DONE]")) throw new Error(`ended without [DONE]: …${JSON.stringify(tail)}`);
    } catch (err) {
      failures++;
      firstError ??= (err as Error).message;
    }
  };
  await Promise.all(Array.from({ length: m.count }, one));
  process.send!({ ok: m.count - failures, failures, firstError, ms: performance.now() - started });
  await dispatcher.close();
  process.exit(0);
}
