/**
 * Types of the xk6-sse extension (`k6/x/sse`), which @types/k6 does not ship: what its Go module
 * exports (sse.go: Open, Client.On/Close, Event, HTTPResponse), field names as k6 maps them.
 */
declare module "k6/x/sse" {
  export interface SseEvent {
    id: string;
    /** Set on a comment line (`: keep-alive`), with empty `data`. */
    comment: string;
    name: string;
    data: string;
  }
  export interface SseError {
    error(): string;
  }
  export interface SseClient {
    on(event: "open", handler: () => void): void;
    on(event: "event", handler: (event: SseEvent) => void): void;
    on(event: "error", handler: (error: SseError) => void): void;
    close(): void;
  }
  export interface SseParams {
    method?: string;
    body?: string;
    headers?: Record<string, string>;
    tags?: Record<string, string>;
  }
  export interface SseResponse {
    url: string;
    status: number;
    headers: Record<string, string>;
    /** Set when the connection failed. */
    error: string;
  }
  const sse: {
    /** Blocks the VU until the stream ends or the client is closed. */
    open(url: string, params: SseParams, setup: (client: SseClient) => void): SseResponse;
  };
  export default sse;
}
