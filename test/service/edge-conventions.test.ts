import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../service/src/errors.js";

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
    const casts = files.flatMap(([path, text]) =>
      [...text.matchAll(/request\.(body|params|query) as /g)].map(() => path),
    );
    expect(casts).toEqual([]);
  });

  it("every error is built by a factory of the one registry (errors.ts), never at a call site", () => {
    const built = files
      .filter(([path, text]) => !path.endsWith("errors.ts") && /new ApiError\(/.test(text))
      .map(([path]) => path);
    expect(built).toEqual([]);
  });

  it("every error code in the registry is declared once and used; tests expect only declared codes", () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    // A code is used when a factory in errors.ts or a call site names it as a string.
    const everywhere = files.map(([, text]) => text.replace(/export const ERROR_CODES = \[[^\]]*\]/s, "")).join("\n");
    const unused = ERROR_CODES.filter((code) => !everywhere.includes(`"${code}"`));
    expect(unused).toEqual([]);
    // What the tests read back from real answers: every code there must be ours (the upstream
    // stubs under test/helpers speak for the upstream, whose own codes are not ours to declare).
    const expected = sources("test")
      .filter(([path]) => path.endsWith(".test.ts"))
      .flatMap(([, text]) => [...text.matchAll(/code: "([a-z_]+)"/g)].map((m) => m[1]));
    const undeclared = [...new Set(expected)].filter((code) => !(ERROR_CODES as readonly string[]).includes(code));
    expect(undeclared).toEqual([]);
  });

  it("every /v1 route declares its responses per status, errors as the one envelope", () => {
    const routes = files.filter(([path]) => path.includes("routes/v1/"));
    const missing = routes.flatMap(([path, text]) => {
      const declared = [...text.matchAll(/app\.(get|post|put|patch|delete|route)\(/g)].length;
      const withResponses = [...text.matchAll(/response: responses\(/g)].length;
      return declared === withResponses ? [] : [`${path}: ${declared} routes, ${withResponses} with responses()`];
    });
    expect(missing).toEqual([]);
  });
});
