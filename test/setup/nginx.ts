/**
 * vitest global setup: nginx, the real gateway of the load-test tests. Found on PATH or in the
 * system binary directory; when missing and we are root on Debian, installed from the
 * distribution's package, so `npm test` needs nothing installed by hand.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";

const SYSTEM_DIRS = ["/usr/sbin", "/usr/local/sbin", "/usr/local/nginx/sbin"];

function findNginx(): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), ...SYSTEM_DIRS];
  return dirs.filter(Boolean).find((dir) => existsSync(join(dir, "nginx")));
}

function install(): void {
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  console.log("nginx not found: installing the Debian package");
  execFileSync("apt-get", ["update", "-qq"], { env, stdio: "inherit", timeout: 300_000 });
  execFileSync("apt-get", ["install", "-y", "-qq", "nginx"], { env, stdio: "inherit", timeout: 300_000 });
  // The package starts a system nginx on port 80; the tests run private ones.
  try {
    execFileSync("service", ["nginx", "stop"], { stdio: "ignore", timeout: 30_000 });
  } catch {
    // not started, or no service manager
  }
}

export default function setup(): void {
  let dir = findNginx();
  if (!dir && process.getuid?.() === 0 && existsSync("/usr/bin/apt-get")) {
    install();
    dir = findNginx();
  }
  if (!dir)
    throw new Error(
      "nginx is required by the load-test tests and was not found: install it (Debian: apt-get install -y nginx)",
    );
  // The harness starts `nginx` from PATH; make sure that is this one for the workers.
  const path = (process.env.PATH ?? "").split(delimiter);
  if (!path.includes(dir)) process.env.PATH = [dir, ...path].join(delimiter);
}
