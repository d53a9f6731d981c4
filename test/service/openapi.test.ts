import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileErrors, validate } from "@readme/openapi-parser";
import { buildTestApp, type TestApp } from "../helpers/app.js";

describe("GET /v1/openapi.json", () => {
  let t: TestApp;
  let doc: any;
  beforeAll(async () => {
    t = await buildTestApp();
    const res = await t.app.inject({ url: "/v1/openapi.json" }); // no key: the document is public
    expect(res.statusCode).toBe(200);
    doc = res.json();
  });
  afterAll(() => t.close());

  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await validate(structuredClone(doc));
    expect(result.valid, result.valid ? "" : compileErrors(result)).toBe(true);
    expect(doc.openapi).toBe("3.1.0");
  });

  it("lists every API route the server has, and nothing for the cluster's eyes only", () => {
    // Routes as the router knows them (HEAD twins aside), in OpenAPI's path syntax.
    const routes = t.app
      .printRoutes({ commonPrefix: false })
      .split("\n")
      .flatMap((line) => {
        const m = /(\/\S*) \(([A-Z, ]+)\)/.exec(line.replace(/^[│├└─\s]+/, ""));
        return m
          ? m[2]
              .split(", ")
              .filter((v) => v !== "HEAD")
              .map((verb) => [m[1], verb.toLowerCase()] as const)
          : [];
      });
    expect(routes.length).toBeGreaterThan(10);
    const documented = (path: string) => path.replace(/:(\w+)/g, "{$1}").replace(/\*$/, "{model}");
    const missing = routes
      .filter(([path]) => path.startsWith("/v1/") || path.startsWith("/mcp"))
      .filter(([path]) => path !== "/v1/openapi.json")
      .filter(([path, verb]) => !doc.paths[documented(path)]?.[verb]);
    expect(missing).toEqual([]);
    expect(Object.keys(doc.paths).filter((p) => p.startsWith("/health") || p === "/metrics")).toEqual([]);
  });

  it("gives each /v1 operation its success schema and the error envelope for 4xx and 5xx", () => {
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      if (!path.startsWith("/v1/")) continue;
      for (const [verb, op] of Object.entries<any>(item)) {
        const codes = Object.keys(op.responses ?? {});
        expect(
          codes.some((c) => /^2\d\d$/.test(c)),
          `${verb} ${path}`,
        ).toBe(true);
        for (const range of ["4XX", "5XX"]) {
          expect(
            op.responses[range]?.content?.["application/json"]?.schema?.properties?.error?.required,
            `${verb} ${path} ${range}`,
          ).toEqual(["message", "type", "param", "code"]);
        }
      }
    }
    expect(doc.paths["/v1/chat/completions"].post.requestBody.content["application/json"].schema.required).toEqual([
      "model",
      "messages",
    ]);
    expect(doc.paths["/v1/embeddings"].post.requestBody.content["application/json"].schema.required).toEqual([
      "model",
      "input",
    ]);
    expect(doc.paths["/v1/responses"].post.requestBody.content["application/json"].schema.required).toEqual([
      "model",
      "input",
    ]);
    for (const path of ["/v1/responses/{id}", "/v1/responses/{id}/input_items"])
      expect(doc.paths[path].get.responses["200"], path).toBeDefined();
    expect(doc.paths["/v1/responses/{id}"].delete.responses["200"].content["application/json"].schema.required).toEqual(
      ["id", "object", "deleted"],
    );
    expect(doc.components.securitySchemes.bearer).toEqual({ type: "http", scheme: "bearer" });
  });
});
