import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/** Every .ts file under a directory, as [path, text]. */
function sources(dir: string): Array<[string, string]> {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith(".ts") ? [[path, readFileSync(path, "utf8")] as [string, string]] : [];
  });
}

describe("service conventions", () => {
  const files = sources("service/src");

  it("no route casts its request: handler types come from the route schemas", () => {
    const casts = files.flatMap(([path, text]) => [...text.matchAll(/request\.(body|params|query) as /g)].map(() => path));
    expect(casts).toEqual([]);
  });

  it("every error is built by a factory of the one registry (errors.ts), never at a call site", () => {
    const built = files.filter(([path, text]) => !path.endsWith("errors.ts") && /new ApiError\(/.test(text)).map(([path]) => path);
    expect(built).toEqual([]);
  });
});
