#!/usr/bin/env node
// Helm post-renderer (the platform Release's `postrender`): reads the rendered chart on stdin and
// writes it back with the Amazon RDS CA mounted in every pod (see docdb-ca.ts). tsx is resolved
// from this file's location, so the working directory Helm runs it in does not matter.
import { register } from "tsx/esm/api";

register();
const { withDocdbCa } = await import("./docdb-ca.ts");
const { awsRdsCaBundle } = await import("../../api/ca-bundle.ts");
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
try {
  process.stdout.write(withDocdbCa(Buffer.concat(chunks).toString("utf8"), awsRdsCaBundle()));
} catch (err) {
  process.stderr.write(`docdb-ca post-renderer: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
