/**
 * Decodes an OTLP ExportTraceServiceRequest sent as protobuf (http/protobuf, the exporters'
 * default) into the JSON encoding's shape, ids as hex. The schema is the part of
 * opentelemetry-proto's trace.proto, resource.proto and common.proto the tests read, with the same
 * field numbers; protobufjs skips every other field.
 */
import protobuf from "protobufjs";

const root = protobuf.Root.fromJSON({
  nested: {
    AnyValue: {
      fields: {
        stringValue: { type: "string", id: 1 },
        boolValue: { type: "bool", id: 2 },
        intValue: { type: "int64", id: 3 },
        doubleValue: { type: "double", id: 4 },
      },
    },
    KeyValue: { fields: { key: { type: "string", id: 1 }, value: { type: "AnyValue", id: 2 } } },
    Status: { fields: { code: { type: "int32", id: 3 } } },
    Span: {
      fields: {
        traceId: { type: "bytes", id: 1 },
        spanId: { type: "bytes", id: 2 },
        parentSpanId: { type: "bytes", id: 4 },
        name: { type: "string", id: 5 },
        kind: { type: "int32", id: 6 },
        attributes: { rule: "repeated", type: "KeyValue", id: 9 },
        status: { type: "Status", id: 15 },
      },
    },
    ScopeSpans: { fields: { spans: { rule: "repeated", type: "Span", id: 2 } } },
    ResourceSpans: { fields: { scopeSpans: { rule: "repeated", type: "ScopeSpans", id: 2 } } },
    ExportTraceServiceRequest: { fields: { resourceSpans: { rule: "repeated", type: "ResourceSpans", id: 1 } } },
  },
});
const request = root.lookupType("ExportTraceServiceRequest");

type Spans = { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }> }> };
const hex = (id: unknown) => (id instanceof Uint8Array ? Buffer.from(id).toString("hex") : undefined);

/** The request as the JSON encoding writes it: ids in hex, 64-bit integers as strings. */
export function decodeTraces(body: Buffer): Spans {
  const decoded = request.toObject(request.decode(body), { longs: String, defaults: false }) as Spans;
  for (const span of (decoded.resourceSpans ?? []).flatMap((r) => r.scopeSpans ?? []).flatMap((s) => s.spans ?? [])) {
    for (const id of ["traceId", "spanId", "parentSpanId"]) span[id] = hex(span[id]);
  }
  return decoded;
}
