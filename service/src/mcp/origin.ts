/**
 * Which browser origins may call the MCP endpoint. Requests without Origin (every non-browser
 * client) pass; so do same-origin pages, local tools on localhost, the configured public origin
 * and the CORS allow-list (CORS_ORIGINS). A page on any other site is refused before it reaches a session. (The bearer key is
 * still required on every request, which is what defeats DNS rebinding.)
 */
const LOCAL_HOSTNAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function originAllowed(
  origin: string | undefined,
  host: string | undefined,
  publicUrl: string,
  corsOrigins: readonly string[] = [],
): boolean {
  if (origin === undefined || corsOrigins.includes(origin)) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // includes the opaque origin "null"
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  if (LOCAL_HOSTNAMES.has(url.hostname)) return true;
  if (host && url.host === host.toLowerCase()) return true;
  try {
    return url.origin === new URL(publicUrl).origin;
  } catch {
    return false;
  }
}
