// `npm run example` runs this before the agent. It builds what the example runs, the runtime package
// (packages/runtime/dist, imported as @protoc-gen-a2a/runtime) and the examples (dist-examples), and
// each only when it is stale: an output is missing or older than the newest of its inputs. A start with
// nothing changed builds nothing and prints nothing. The generator (dist/) is not built: the example
// does not use it. `npm run build` and `npm run build:examples` still always build.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const tsc = join(root, "node_modules/typescript/bin/tsc");

/** Paths (relative to the root, "/"-separated) of the files under `dir` whose names end with `suffix`. */
function filesUnder(dir, suffix) {
  let entries;
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return filesUnder(path, suffix);
    return e.name.endsWith(suffix) ? [path] : [];
  });
}

const mtime = (path) => {
  try {
    return statSync(join(root, path)).mtimeMs;
  } catch {
    return undefined;
  }
};

const emitted = (sources, from, to) =>
  sources.filter((s) => !s.endsWith(".d.ts")).map((s) => `${to}${s.slice(from.length).replace(/\.ts$/, ".js")}`);

const steps = [
  {
    name: "the runtime package",
    project: "packages/runtime/tsconfig.json",
    sources: () => filesUnder("packages/runtime/src", ".ts"),
    config: ["tsconfig.base.json", "packages/runtime/tsconfig.json"],
    outputs: (sources) => emitted(sources, "packages/runtime/src", "packages/runtime/dist"),
  },
  {
    name: "the examples",
    project: "tsconfig.examples.json",
    sources: () => [
      ...filesUnder("examples", ".ts"),
      ...filesUnder("generated-samples", ".ts"),
      "test/helpers/postgres-peer.ts",
    ],
    // The runtime's declarations: a runtime change re-checks the examples against it.
    config: () => ["tsconfig.base.json", "tsconfig.examples.json", ...filesUnder("packages/runtime/dist", ".d.ts")],
    outputs: (sources) => emitted(sources, "", "dist-examples/"),
  },
];

/** Why the step must build (a missing output, or the newest input), or undefined when it is up to date. */
function staleness(step) {
  const sources = step.sources();
  const config = typeof step.config === "function" ? step.config() : step.config;
  let newest = { path: "", time: -Infinity };
  for (const path of [...sources, ...config]) {
    const time = mtime(path);
    if (time !== undefined && time > newest.time) newest = { path, time };
  }
  for (const path of step.outputs(sources)) {
    const time = mtime(path);
    if (time === undefined) return `${path} is missing`;
    if (time < newest.time) return `${newest.path} is newer than ${path}`;
  }
  return undefined;
}

for (const step of steps) {
  const why = staleness(step);
  if (!why) continue;
  process.stderr.write(`build-example: building ${step.name} (${why})\n`);
  const run = spawnSync(process.execPath, [tsc, "-p", step.project], { cwd: root, stdio: "inherit" });
  if (run.status !== 0) {
    // tsc writes its outputs even when it reports errors: age one so that the next run builds again.
    const [first] = step.outputs(step.sources()).filter((p) => mtime(p) !== undefined);
    if (first) utimesSync(join(root, first), 0, 0);
    process.exit(run.status ?? 1);
  }
}
