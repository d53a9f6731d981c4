/** A query's span is named by its verb and first table, never by its text or values. */
import { describe, expect, it } from "vitest";
import { statementName } from "../../../service/src/telemetry/statement-name.js";

describe("statementName", () => {
  it("names a query by its verb and first table", () => {
    expect(statementName("SELECT id, name FROM api_keys WHERE id = $1 AND project_id = $2")).toBe("SELECT api_keys");
    expect(statementName("  insert into usage_totals (project_id) VALUES ($1) ON CONFLICT DO NOTHING")).toBe(
      "INSERT usage_totals",
    );
    expect(statementName("UPDATE api_keys SET last_used_at = now() WHERE id = ANY($1)")).toBe("UPDATE api_keys");
    expect(statementName("DELETE FROM files WHERE id = $1 RETURNING blob_key")).toBe("DELETE files");
    expect(
      statementName("WITH q AS (SELECT websearch_to_tsquery('english', $2) AS q) SELECT * FROM file_chunks, q"),
    ).toBe("WITH file_chunks");
    expect(statementName("SELECT pg_notify($1, $2)")).toBe("SELECT");
  });

  it("leaves out values written into the text", () => {
    const name = statementName("SELECT * FROM api_keys WHERE secret_hash = 'sk-live-abcdef123456'");
    expect(name).toBe("SELECT api_keys");
    expect(statementName("ALTER ROLE app WITH LOGIN PASSWORD 'hunter2'")).toBe("ALTER");
  });
});
