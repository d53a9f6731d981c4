/**
 * vitest global setup: the headless browser the report's charts are checked in. Found on PATH or
 * in the system binary directory; when missing and we are root on Debian, installed from the
 * distribution's package (as nginx is), so `npm test` needs nothing installed by hand.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";

const NAMES = ["chromium", "chromium-browser"];
const SYSTEM_DIRS = ["/usr/bin", "/usr/local/bin"];

/** The browser's executable, for playwright-core (which brings no browser of its own). */
export function findChromium(): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), ...SYSTEM_DIRS].filter(Boolean);
  for (const dir of dirs) for (const name of NAMES) if (existsSync(join(dir, name))) return join(dir, name);
  return undefined;
}

function install(): void {
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  console.log("chromium not found: installing the Debian package");
  execFileSync("apt-get", ["update", "-qq"], { env, stdio: "inherit", timeout: 300_000 });
  // A browser and its libraries: a few hundred MB, so a longer bound than nginx's.
  execFileSync("apt-get", ["install", "-y", "-qq", "chromium"], { env, stdio: "inherit", timeout: 900_000 });
}

export default function setup(): void {
  if (findChromium()) return;
  if (process.getuid?.() === 0 && existsSync("/usr/bin/apt-get")) install();
  if (!findChromium())
    throw new Error(
      "chromium is required by the report's browser test and was not found: install it (Debian: apt-get install -y chromium)",
    );
}
