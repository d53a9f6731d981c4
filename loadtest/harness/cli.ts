/** `npm run loadtest -- …`: see main.ts and `--help`. */
import { main } from "./main.js";

process.exitCode = await main(process.argv.slice(2));
