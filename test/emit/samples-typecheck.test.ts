import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { repoRoot, run } from "../helpers/run.js";

describe("generated TypeScript", () => {
  it("compiles under @tsconfig/strictest's options, importing the runtime as a package", () => {
    const r = run("node", [join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.samples.json"]);
    expect(r.stdout.toString() + r.stderr).toBe("");
    expect(r.status).toBe(0);
  });
});
