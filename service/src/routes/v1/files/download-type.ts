/**
 * The Content-Type a download is served with. The uploader chose the stored type, so echoing it
 * would let one key holder plant `text/html` or `image/svg+xml` (script) on our origin for a
 * browser to render. Downloads always go out as `attachment` with `nosniff`; on top of that only
 * passive types are echoed, and any other type is served as `application/octet-stream`.
 * Parameters (e.g. `; charset=utf-8`) are kept only for the text types that need them.
 */
const PASSIVE = new Set([
  "text/plain",
  "text/csv",
  "text/markdown",
  "application/json",
  "application/jsonl",
  "application/x-ndjson",
  "application/pdf",
  "application/zip",
  "application/octet-stream",
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "audio/mpeg",
  "audio/wav",
  "video/mp4",
]);

export function downloadType(stored: string): string {
  const essence = stored.split(";")[0].trim().toLowerCase();
  if (!PASSIVE.has(essence)) return "application/octet-stream";
  return essence.startsWith("text/") ? stored : essence;
}
