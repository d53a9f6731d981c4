/**
 * Decodes an upstream Server-Sent Events body into `data` payloads: skips `:` comments and other
 * fields, joins multi-line data, handles events split across network chunks.
 */
export async function* sseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let start = 0;
    let nl: number;
    while ((nl = buffer.indexOf("\n", start)) !== -1) {
      const end = nl > start && buffer.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      const line = buffer.slice(start, end);
      start = nl + 1;
      if (line === "") {
        if (data.length) yield data.length === 1 ? data[0] : data.join("\n");
        data = [];
      } else if (line.startsWith("data:")) {
        data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
      }
    }
    buffer = buffer.slice(start);
  }
  // A last event without its blank line still counts.
  if (buffer.startsWith("data:")) data.push(buffer.slice(buffer.charCodeAt(5) === 32 ? 6 : 5).trimEnd());
  if (data.length) yield data.join("\n");
}
