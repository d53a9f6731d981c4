/** The service's version, for the CLI's --version, the API document and the MCP server's info. */
import { readFileSync } from "node:fs";

// Stamped by the production build (esbuild `define`): the bundle has no package.json to read.
declare const AGENTPORT_VERSION: string | undefined;

/** npm sets npm_package_version; run directly from a checkout, package.json is two folders up. */
function readVersion(): string {
  if (typeof AGENTPORT_VERSION === "string") return AGENTPORT_VERSION;
  if (process.env.npm_package_version) return process.env.npm_package_version;
  try {
    return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string })
      .version;
  } catch {
    return "unknown";
  }
}

export const SERVICE_VERSION = readVersion();
