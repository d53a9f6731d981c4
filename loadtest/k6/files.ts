/**
 * Files under load: each iteration uploads random bytes, downloads them (SHA-256 must match),
 * finds the file in the listing, deletes it and sees 404 afterwards.
 */
import { check } from "k6";
import type { Options } from "k6/options";
import { num, str } from "./lib/env.ts";
import { downloadSha256, listAll, remove, statusOf, upload } from "./lib/files.ts";

const MAX_KIB = num("FILE_MAX_KIB", 512);

export const options: Options = {
  scenarios: {
    round_trips: {
      executor: "constant-vus",
      exec: "roundTrip",
      vus: num("VUS", 8),
      duration: str("DURATION", "1m"),
    },
  },
  thresholds: {
    http_req_failed: [{ threshold: "rate<0.01", abortOnFail: true, delayAbortEval: "10s" }],
    "http_req_duration{name:files.upload}": [`p(95)<${num("UPLOAD_P95_MS", 2000)}`],
    "http_req_duration{name:files.content}": [`p(95)<${num("DOWNLOAD_P95_MS", 2000)}`],
    checks: ["rate>0.99"],
  },
};

export function roundTrip(): void {
  const size = 1024 + Math.floor(Math.random() * (MAX_KIB - 1) * 1024);
  const up = upload(size, `k6-${__VU}-${__ITER}.bin`);
  if (!check(up, { "upload 200": (u) => u.status === 200 && !!u.id })) return;
  const id = up.id!;
  const down = downloadSha256(id);
  const listed = listAll();
  check(null, {
    "download 200": () => down.status === 200,
    "SHA-256 matches": () => down.sha256 === up.sha256,
    "listed after upload": () => !!listed && listed.includes(id),
  });
  check(null, {
    "delete 200": () => remove(id) === 200,
    "404 after delete": () => statusOf(id) === 404,
  });
}
