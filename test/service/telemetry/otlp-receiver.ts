/**
 * An OTLP/HTTP traces receiver, as a collector serves it: `POST /v1/traces` with an
 * ExportTraceServiceRequest in protobuf (http/protobuf) or JSON (http/json), answered 200 with an
 * empty partial success.
 * It keeps every span it was sent, its attributes flattened to plain values.
 */
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeTraces } from "./otlp-proto.js";

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's SpanKind: 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  status?: { code?: number };
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** The content type of each export, as received. */
  contentTypes: string[];
  /** Every request body as received, to search for what must never be sent. */
  bodies: string[];
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };
type WireSpan = Omit<ReceivedSpan, "attributes"> & { attributes?: Array<{ key: string; value: AnyValue }> };

const plain = (v: AnyValue): unknown =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));

function spansOf(request: { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: WireSpan[] }> }> }): ReceivedSpan[] {
  return (request.resourceSpans ?? [])
    .flatMap((r) => r.scopeSpans ?? [])
    .flatMap((s) => s.spans ?? [])
    .map((s) => ({
      ...s,
      parentSpanId: s.parentSpanId || undefined,
      attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, plain(a.value)])),
    }));
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const contentTypes: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const type = String(req.headers["content-type"]);
      if (req.method !== "POST" || req.url !== "/v1/traces" || !/^application\/(json|x-protobuf)/.test(type)) {
        res.writeHead(404).end();
        return;
      }
      contentTypes.push(type);
      bodies.push(body.toString("latin1"));
      spans.push(
        ...spansOf(
          type.startsWith("application/json") ? JSON.parse(body.toString("utf8")) : (decodeTraces(body) as never),
        ),
      );
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
