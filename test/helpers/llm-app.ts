/** The app serving `agents`, its llm agents answered by a local upstream stub: listening, with a key and the official client. */
import type OpenAI from "openai";
import type { AppOptions } from "../../service/src/app.js";
import { agentsFileOf, buildTestApp, type TestApp } from "./app.js";
import { listen, openaiClient } from "./openai-client.js";
import { startUpstreamStub, type UpstreamStub } from "./upstream-stub.js";

export interface LlmTestApp {
  t: TestApp;
  stub: UpstreamStub;
  /** The API's base URL, `…/v1`. */
  baseURL: string;
  secret: string;
  client: OpenAI;
  /** Closes the app, then the stub. */
  close(): Promise<void>;
}

export async function startLlmTestApp(
  agents: object[],
  env: Record<string, string> = {},
  parts: Pick<AppOptions, "logger"> = {},
): Promise<LlmTestApp> {
  const stub = await startUpstreamStub();
  const t = await buildTestApp("pglite", { AGENTS_FILE: agentsFileOf(agents), LLM_BASE_URL: stub.url, ...env }, parts);
  const baseURL = await listen(t.app);
  const secret = (await t.createKey()).secret;
  return {
    t,
    stub,
    baseURL,
    secret,
    client: openaiClient(baseURL, secret),
    async close() {
      await t.close();
      await stub.close();
    },
  };
}
