/**
 * `npm run bench [-- --only chat|search|files|…]`: runs each bench section in turn. A section is a module
 * here exporting `run(): Promise<void>` that prints its own figures. Loopback only.
 */
const SECTIONS = [
  "chat",
  "search",
  "files",
  "artifact",
  "startup",
  "streams",
  "revocation",
  "hostile",
  "chain",
  "tracing",
  "capacity",
  "budget-spend",
  "memory",
] as const;

const onlyAt = process.argv.indexOf("--only");
const only = onlyAt >= 0 ? process.argv[onlyAt + 1] : undefined;
if (only !== undefined && !SECTIONS.includes(only as (typeof SECTIONS)[number])) {
  console.error(`--only takes one of: ${SECTIONS.join(", ")}`);
  process.exit(2);
}

for (const name of SECTIONS) {
  if (only && name !== only) continue;
  let section: { run(): Promise<void> };
  try {
    section = (await import(`./${name}.js`)) as { run(): Promise<void> };
  } catch (err) {
    const missing =
      (err as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND" &&
      String((err as Error).message).includes(`${name}.`);
    if (!missing) throw err;
    console.log(`\n[${name}] no bench section yet (service/bench/${name}.ts)`);
    continue;
  }
  console.log(`\n[${name}]`);
  await section.run();
}
