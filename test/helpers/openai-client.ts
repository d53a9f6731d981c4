/** The official openai client against a listening test app: real HTTP, real SSE parsing. */
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import type { FastifyInstance } from "fastify";

/** Listens on a free loopback port; returns the API base URL. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = app.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}/v1`;
}

export function openaiClient(baseURL: string, apiKey: string): OpenAI {
  return new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 20_000 });
}
