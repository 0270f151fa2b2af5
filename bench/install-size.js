// Production install size: what `npm install --omit=dev` puts in node_modules
// for our runtime (packed from this checkout, with its peers) against
// @a2a-js/sdk 1.3.0 (the version the interop tests use), each in a fresh
// folder outside the repository. Needs the npm registry (or its cache).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

function installSize(specs) {
  const dir = mkdtempSync(join(tmpdir(), "a2a-size-"));
  try {
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "size", private: true }));
    const flags = ["--omit=dev", "--no-audit", "--no-fund", "--prefer-offline", "--silent"];
    execFileSync("npm", ["install", ...flags, ...specs], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
    const bytes = Number(
      execFileSync("du", ["-sb", join(dir, "node_modules")])
        .toString()
        .split("\t")[0],
    );
    const packages = execFileSync("npm", ["ls", "--all", "--parseable", "--omit=dev"], { cwd: dir }).toString();
    return { bytes, packages: packages.trim().split("\n").length - 1 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function benchInstallSize() {
  const packDir = mkdtempSync(join(tmpdir(), "a2a-pack-"));
  try {
    execFileSync("npm", ["pack", "-w", "@protoc-gen-a2a/runtime", "--pack-destination", packDir, "--silent"], {
      cwd: root,
      stdio: ["ignore", "ignore", "inherit"],
    });
    const tarball = join(
      packDir,
      readdirSync(packDir).find((f) => f.endsWith(".tgz")),
    );
    const ours = installSize([tarball]);
    const a2aJs = installSize(["@a2a-js/sdk@1.3.0"]);
    return { ours, a2aJs, ratio: ours.bytes / a2aJs.bytes };
  } finally {
    rmSync(packDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { ours, a2aJs, ratio } = benchInstallSize();
  const mb = (b) => `${(b / 1024 / 1024).toFixed(1)} MB`;
  console.log(
    `runtime: ${mb(ours.bytes)} (${ours.packages} packages); @a2a-js/sdk 1.3.0: ${mb(a2aJs.bytes)} ` +
      `(${a2aJs.packages} packages); ratio ${ratio.toFixed(2)}x`,
  );
}
