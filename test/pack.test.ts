/**
 * The packed package, used as a new user would: npm pack, install the
 * tarball into a separate project with its own buf.yaml and buf.gen.yaml,
 * then buf generate there with `local: protoc-gen-a2a`.
 */
import { describe, expect, it } from "vitest";
import { cpSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readTree, repoRoot, run, tempDir } from "./helpers/run.js";

describe("npm pack → install → buf generate", () => {
  it("produces the outputs in a user project", () => {
    const work = tempDir("pack");
    const packed = run("npm", ["pack", "--pack-destination", work, "--silent"]);
    expect(packed.status, packed.stderr).toBe(0);
    const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"))!;
    expect(tarball).toMatch(/^protoc-gen-a2a-.*\.tgz$/);

    const user = join(work, "user");
    mkdirSync(join(user, "proto/a2a"), { recursive: true });
    cpSync(join(repoRoot, "proto/staged/v1.0.1/a2a.proto"), join(user, "proto/a2a/a2a.proto"));
    cpSync(join(repoRoot, "proto/staged/google"), join(user, "proto/google"), { recursive: true });
    writeFileSync(join(user, "package.json"), JSON.stringify({ name: "user-project", private: true, type: "module" }));
    writeFileSync(join(user, "buf.yaml"), "version: v2\nmodules:\n  - path: proto\n");
    writeFileSync(
      join(user, "buf.gen.yaml"),
      "version: v2\ninputs:\n  - directory: proto\n    paths: [proto/a2a]\nplugins:\n  - local: protoc-gen-a2a\n    out: gen\n    strategy: all\n    opt: target=ts\n",
    );
    const bufVersion = (JSON.parse(run("npm", ["pkg", "get", "devDependencies"]).stdout.toString()) as Record<string, string>)["@bufbuild/buf"];
    const install = run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", join(work, tarball), `@bufbuild/buf@${bufVersion}`], { cwd: user });
    expect(install.status, install.stderr).toBe(0);

    const gen = run("npx", ["--no-install", "buf", "generate"], { cwd: user });
    expect(gen.stderr).toBe("");
    expect(gen.status).toBe(0);
    const files = [...readTree(join(user, "gen")).keys()].sort();
    expect(files).toEqual([
      "a2a/a2a_a2a.ts",
      "a2a/a2a_errors.md",
      "a2a/a2a_errors.ts",
      "a2a/a2a_grpc.ts",
      "a2a/a2a_jsonrpc.ts",
      "a2a/a2a_operations.md",
      "a2a/a2a_overrides.md",
      "a2a/a2a_rest.ts",
      "a2a/a2a_routes.json",
      "a2a/a2a_routes.md",
      "a2a/a2a_routes.ts",
      "a2a_sources.md",
    ]);
    const routes = JSON.parse(readTree(join(user, "gen")).get("a2a/a2a_routes.json")!.toString());
    expect(routes.routes).toHaveLength(22);
    expect(routes.protocolVersion).toBe("1.0"); // the shipped overrides were applied
  });
});
