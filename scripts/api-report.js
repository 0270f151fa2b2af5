// @ts-check
// `npm run api-report` rewrites api/*.api.md, the public surface of the runtime
// package, the generator package and the generated modules (see
// scripts/api-report/report.js); `npm run api-report -- --check` writes
// nothing and exits 1 with a summary of each difference when they are out of
// date. It reads the TypeScript sources (no build needed). A development tool
// only: the plugin never imports it, so generation never loads ts-morph.
import { buildReports, compareReports, repoRoot, writeReports } from "./api-report/report.js";

const args = process.argv.slice(2);
const unknown = args.filter((a) => a !== "--check");
if (unknown.length) {
  console.error(`api-report: unknown argument ${unknown.join(" ")}; usage: node scripts/api-report.js [--check]`);
  process.exit(2);
}
const started = performance.now();
const reports = buildReports(repoRoot);
const took = `${((performance.now() - started) / 1000).toFixed(1)} s`;
if (args.includes("--check")) {
  const differences = compareReports(repoRoot, reports);
  for (const d of differences) console.error(d.message);
  if (differences.length) {
    console.error(`api-report: ${differences.length} report(s) out of date; run \`npm run api-report\`, commit api/`);
    process.exit(1);
  }
  console.log(`api-report: ${reports.size} reports up to date (${took})`);
} else {
  const changed = writeReports(repoRoot, reports);
  console.log(`api-report: ${changed.length ? `wrote ${changed.join(", ")}` : "no change"} (${took})`);
}
