// @ts-check
// Rule: api/*.api.md hold the public surface of the two packages and of the
// generated modules, one ```ts block per module, and change only when that
// surface changes. Which modules: each subpath of a package's "exports" map
// (read from its TypeScript source: ./dist/x.d.ts is src/x.ts), and every
// generated module in generated-samples/ except protoc-gen-es output (*_pb.ts)
// and google/. What a module shows: module.js and render.js; which files are
// read: project.js. The text is laid out by Biome (pinned dev dependency,
// fixed options below), so it is the same on every machine and holds no
// absolute path.
//
// This is a development tool: nothing under src/ imports it, so the plugin
// never loads ts-morph or TypeScript when it generates.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { reportProject } from "./project.js";
import { exportedDeclarations, renderModule } from "./module.js";

/** @typedef {{ heading: string; path: string }} ModuleSpec heading: the import name; path: relative to the root */
/** @typedef {{ file: string; title: string; modules: ModuleSpec[] }} ReportSpec file: relative to the root */
/** @typedef {{ file: string; message: string }} ReportDifference */

const reportDir = "api";
const samplesDir = "generated-samples";

/**
 * The three reports of this repository: the runtime package, the generator package, the generated modules.
 * @param {string} root
 * @returns {ReportSpec[]}
 */
export function reportSpecs(root) {
  return [
    packageReport(root, "packages/runtime", "runtime.api.md"),
    packageReport(root, ".", "protoc-gen-a2a.api.md"),
    {
      file: `${reportDir}/generated-samples.api.md`,
      title: "generated modules (generated-samples/)",
      modules: sampleModules(root),
    },
  ];
}

/** Each subpath export of a package, as the source file its types come from. */
function packageReport(/** @type {string} */ root, /** @type {string} */ dir, /** @type {string} */ file) {
  const pkg = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));
  /** @type {ModuleSpec[]} */
  const modules = [];
  for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
    if (subpath.endsWith(".json")) continue; // ./package.json
    const types = typeof target === "string" ? target : (target.types ?? target.default);
    if (typeof types !== "string" || !/\.(d\.ts|js)$/.test(types)) {
      throw new Error(`api-report: ${dir}/package.json exports ${subpath}: no "types" or "default" file to read`);
    }
    const source = posix(join(dir, types.replace(/^\.\/dist\//, "src/").replace(/(\.d\.ts|\.js)$/, ".ts")));
    if (!existsSync(join(root, source))) {
      throw new Error(`api-report: ${dir}/package.json exports ${subpath}: no ${source}`);
    }
    modules.push({ heading: subpath === "." ? pkg.name : `${pkg.name}/${subpath.slice(2)}`, path: source });
  }
  return { file: `${reportDir}/${file}`, title: pkg.name, modules };
}

/** The generated modules (not protoc-gen-es output, not google/), sorted by path. */
function sampleModules(/** @type {string} */ root) {
  /** @type {string[]} */
  const paths = [];
  const walk = (/** @type {string} */ dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory() && path !== `${samplesDir}/google`) walk(path);
      else if (entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith("_pb.ts")) paths.push(path);
    }
  };
  walk(samplesDir);
  return paths.sort().map((path) => ({ heading: path, path }));
}

function posix(/** @type {string} */ path) {
  return path.split(sep).join("/").replace(/^\.\//, "");
}

/**
 * The report texts, by file relative to the root.
 * @param {string} root
 * @param {ReportSpec[]} [specs]
 * @returns {Map<string, string>}
 */
export function buildReports(root, specs = reportSpecs(root)) {
  const project = reportProject(
    root,
    specs.flatMap((spec) => spec.modules.map((m) => join(root, m.path))),
  );
  const blocks = specs.flatMap((spec) => {
    const files = spec.modules.map((m) => project.sourceFile(join(root, m.path)));
    const exported = new Set(files.flatMap((f) => [...exportedDeclarations(f)]));
    return files.map((file) => {
      const options = { infer: project.infer, exported, local: project.files, root };
      const { exports, referenced } = renderModule(file, options);
      const code = [...exports, ...referenced].map((e) => e.text).join("\n\n");
      return { exports: exports.length, referenced: referenced.length, code };
    });
  });
  const formatted = formatAll(blocks.map((b) => b.code));
  /** @type {Map<string, string>} */
  const reports = new Map();
  let i = 0;
  for (const spec of specs) {
    const sections = spec.modules.map((m) => {
      const block = /** @type {{ exports: number; referenced: number }} */ (blocks[i]);
      return moduleSection(m, block, /** @type {string} */ (formatted[i++]));
    });
    reports.set(spec.file, reportHeader(spec) + sections.join("\n"));
  }
  return reports;
}

function reportHeader(/** @type {ReportSpec} */ spec) {
  return [
    `# API report: ${spec.title}`,
    "",
    "<!-- Written by `npm run api-report` (scripts/api-report.js); do not edit. -->",
    "",
    "Every export of each module, sorted by name, written as a declaration whose keyword is its kind (function, class,",
    "interface, type, const, enum; `export * as` for a namespace re-export): parameter and return types, members and",
    "type text as the source writes them (as TypeScript infers them where it does not); no bodies, values, comments or",
    "private members. A table declared `as const` shows its element count. After the exports come the local",
    "declarations they name that no module of this report exports, without `export`.",
    "",
    "",
  ].join("\n");
}

/**
 * @param {ModuleSpec} m
 * @param {{ exports: number; referenced: number }} counts
 * @param {string} code
 */
function moduleSection(m, counts, code) {
  const source = m.heading === m.path ? "" : ` (\`${m.path}\`)`;
  const plural = (/** @type {number} */ n, /** @type {string} */ s) => `${n} ${s}${n === 1 ? "" : "s"}`;
  const summary =
    plural(counts.exports, "export") +
    (counts.referenced ? `; ${plural(counts.referenced, "declaration")} named by them, not exported` : "");
  return `## \`${m.heading}\`${source}\n\n${summary}.\n\n\`\`\`ts\n${code}\`\`\`\n`;
}

const biomeConfig = {
  formatter: { enabled: true, indentStyle: "space", indentWidth: 2, lineWidth: 120, lineEnding: "lf" },
  javascript: { formatter: { quoteStyle: "double", semicolons: "always", trailingCommas: "all" } },
};

/**
 * Lays out every block in one Biome run (its own config, in a temporary directory, so no biome.json of the
 * repository changes the report).
 * @param {string[]} blocks TypeScript declarations
 * @returns {string[]}
 */
function formatAll(blocks) {
  const marker = (/** @type {number} */ i) => `// @api-report-block ${i}`;
  const input = blocks.map((b, i) => `${marker(i)}\n${b}\n`).join("\n");
  const dir = mkdtempSync(join(tmpdir(), "api-report-"));
  try {
    writeFileSync(join(dir, "biome.json"), JSON.stringify(biomeConfig));
    const r = spawnSync(biomeBin(), ["format", "--stdin-file-path=api.ts"], { cwd: dir, input, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`api-report: biome format failed:\n${r.stderr}${r.stdout}`);
    const parts = r.stdout.split(/^\/\/ @api-report-block \d+\n/m).slice(1);
    if (parts.length !== blocks.length) throw new Error("api-report: biome format lost a block marker");
    // Biome puts the comment of an empty table on a line of its own: `[/* 3 elements */]` reads better.
    return parts.map((p) => p.replace(/\n+$/, "\n").replace(/([[{])\n\s*(\/\* \d+ \w+ \*\/)\n\s*([\]}])/g, "$1$2$3"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function biomeBin() {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("@biomejs/biome/package.json")), "bin/biome");
}

/**
 * What differs between the reports and the files under root: each file that differs, is missing, or is an
 * api/*.api.md no report writes, with its first differing lines.
 * @param {string} root
 * @param {Map<string, string>} reports
 * @returns {ReportDifference[]}
 */
export function compareReports(root, reports) {
  /** @type {ReportDifference[]} */
  const out = [];
  for (const [file, text] of reports) {
    const path = join(root, file);
    if (!existsSync(path)) out.push({ file, message: `${file} is missing` });
    else {
      const committed = readFileSync(path, "utf8");
      if (committed !== text) out.push({ file, message: describeDifference(file, committed, text) });
    }
  }
  for (const file of staleReports(root, reports)) out.push({ file, message: `${file} is written by no report` });
  return out;
}

/** api/*.api.md files that no report writes (a report renamed or removed). */
function staleReports(/** @type {string} */ root, /** @type {Map<string, string>} */ reports) {
  const dirs = new Set([...reports.keys()].map((f) => posix(dirname(f))));
  return [...dirs]
    .flatMap((dir) =>
      existsSync(join(root, dir))
        ? readdirSync(join(root, dir))
            .filter((n) => n.endsWith(".api.md"))
            .map((n) => `${dir}/${n}`)
            .filter((f) => !reports.has(f))
        : [],
    )
    .sort();
}

/**
 * `file: +a -b lines; first difference at line n` and up to three lines of each side from there.
 * @param {string} file
 * @param {string} committed
 * @param {string} current
 */
export function describeDifference(file, committed, current) {
  const [was, now] = [committed.split("\n"), current.split("\n")];
  let n = 0;
  while (n < was.length && n < now.length && was[n] === now[n]) n++;
  const { added, removed } = lineCounts(was, now);
  const show = (/** @type {string[]} */ lines, /** @type {string} */ sign) =>
    lines.slice(n, n + 3).map((l) => `  ${sign} ${l}`.trimEnd());
  return [
    `${file} differs from the code (+${added} -${removed} lines); first difference at line ${n + 1}:`,
    ...show(was, "-"),
    ...show(now, "+"),
  ].join("\n");
}

/** Lines only in one side, counted as multisets (a summary, not a diff). */
function lineCounts(/** @type {string[]} */ was, /** @type {string[]} */ now) {
  const counts = new Map();
  for (const l of was) counts.set(l, (counts.get(l) ?? 0) + 1);
  let added = 0;
  for (const l of now) {
    const c = counts.get(l) ?? 0;
    if (c > 0) counts.set(l, c - 1);
    else added++;
  }
  let removed = 0;
  for (const c of counts.values()) removed += c;
  return { added, removed };
}

/**
 * Writes the reports and removes api/*.api.md files no report writes; returns the files changed.
 * @param {string} root
 * @param {Map<string, string>} reports
 */
export function writeReports(root, reports) {
  const changed = compareReports(root, reports);
  for (const { file } of changed) {
    const text = reports.get(file);
    if (text === undefined) rmSync(join(root, file));
    else {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), text);
    }
  }
  return changed.map((d) => d.file);
}

/** The root of this repository (scripts/api-report/ is two levels down). */
export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
