/**
 * A chat stream's SSE events as the harness keeps them: the service's one SSE reader
 * (eventsource-parser underneath, as openai-node reads streams), each event stamped with the time
 * its last byte arrived, for TTFT and inter-chunk latency.
 */
import { SseReader, type SseItem } from "../../service/src/sse/sse-reader.js";

export type SseEvent = SseItem & { at: number };

export class SseEvents {
  private readonly reader = new SseReader();

  /** Feeds the bytes that arrived at `at`; returns the events they completed. */
  push(chunk: Uint8Array | string, at: number): SseEvent[] {
    return this.reader.push(chunk).map((item) => ({ ...item, at }));
  }
}
