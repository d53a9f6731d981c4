/** One keep-alive connection's requests, as a client calling the service in turn; a non-2xx answer throws. */
import { Agent, request } from "undici";

export class Caller {
  private readonly dispatcher = new Agent({ connections: 1, keepAliveTimeout: 60_000, bodyTimeout: 120_000 });
  private readonly base: string;
  constructor(base: string) {
    this.base = base;
  }

  async call(path: string, token: string, body?: unknown): Promise<string> {
    const res = await request(this.base + path, {
      method: body === undefined ? "GET" : "POST",
      dispatcher: this.dispatcher,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${path} answered ${res.statusCode}: ${text.slice(0, 200)}`);
    return text;
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}
