import { parseSoakOptions } from './options.js';
import { reportText } from './report-text.js';
import { runSoak } from './soak.js';

/**
 * `npm run soak -- --minutes N [--kill-every S] [--postgres URL --redis URL [--instances K]]`:
 * the built service under a steady mixed load, then the checks of soak/README.md. Exit 0 when
 * every check passes, 1 when one fails, 2 when the soak could not run.
 */
let options;
try {
  options = parseSoakOptions(process.argv.slice(2));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(2);
}
try {
  const report = await runSoak(options, (line) => console.error(line));
  console.log(reportText(report));
  if (options.json) console.log(JSON.stringify(report));
  process.exit(report.ok ? 0 : 1);
} catch (error) {
  console.error(`soak: could not run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(2);
}
