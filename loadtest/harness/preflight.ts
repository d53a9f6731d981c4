/**
 * Checks before any load, each failing in one line (the harness then exits 2): the target answers,
 * the key is accepted and the streaming model is served; for --local, nginx can be started. A bad
 * key or a typo in the URL would otherwise fire every request of the run and report vacuous
 * percentiles.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import type { Http } from "./http.js";

const TIMEOUT_MS = 10_000;

/** The nginx binary runs (`nginx -v`), or why not. */
export async function nginxProblem(nginx = "nginx"): Promise<string | undefined> {
  const child = spawn(nginx, ["-v"], { stdio: "ignore" });
  try {
    const [code] = (await Promise.race([
      once(child, "exit"),
      once(child, "error").then(([err]: Error[]) => Promise.reject(err)),
    ])) as [number];
    return code === 0 ? undefined : `'${nginx} -v' exited with ${code}`;
  } catch (err) {
    return `nginx cannot be run (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); install it (Debian: apt-get install -y nginx) or pass --nginx PATH`;
  }
}

/** The target answers GET /v1/models with the key and lists `model`, or what is wrong. */
export async function targetProblem(
  http: Http,
  baseUrl: string,
  key: string,
  model: string,
): Promise<string | undefined> {
  let res;
  try {
    res = await http.json(`${baseUrl}/v1/models`, { key, timeoutMs: TIMEOUT_MS });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
    return `${baseUrl} is not reachable (${e.cause?.code ?? e.code ?? e.name}: ${e.cause?.message ?? e.message})`;
  }
  const error = (res.body as { error?: { message?: string; code?: string } } | undefined)?.error;
  if (res.status === 401)
    return `the key is refused by ${baseUrl} (401 ${error?.code ?? ""}): ${error?.message ?? res.text.slice(0, 200)}`;
  if (res.status !== 200)
    return `${baseUrl}/v1/models answered ${res.status}${error?.message ? `: ${error.message}` : ""} (is --target the API's origin, without /v1?)`;
  const ids = ((res.body as { data?: Array<{ id: string }> }).data ?? []).map((m) => m.id);
  if (!ids.includes(model))
    return `the model '${model}' is not served to this key (it sees: ${ids.join(", ") || "none"}); pass --stream-model`;
  return undefined;
}
