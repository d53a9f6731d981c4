/**
 * A YAML parser error on one line: the `yaml` package's message is its reason and position
 * ("… at line 4, column 1:") followed by a code frame over several lines; a refusal that names a
 * file keeps the first line only, so the file, the line and the reason read together.
 */
export function yamlProblem(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split("\n", 1)[0].replace(/:$/, "");
}
