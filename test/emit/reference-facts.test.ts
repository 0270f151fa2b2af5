/**
 * Every fact of the interop reference's tables "The operations across the
 * three bindings" (section 2) and "Names and routes" (section 4) must appear
 * in the generated docs, in the row of the same operation.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../helpers/run.js";

const seed = readFileSync(join(repoRoot, "../shared/seeds/000_a54d0872975f28d0.txt"), "utf8");
const doc = (p: string) => readFileSync(join(repoRoot, "generated-samples", p), "utf8");

function tableRows(startMarker: string, endMarker: string): string[][] {
  const start = seed.indexOf(startMarker);
  const end = seed.indexOf(endMarker, start);
  expect(start, startMarker).toBeGreaterThan(0);
  return seed
    .slice(start, end)
    .split("\n")
    .filter((l) => l.includes(" | ") && !l.startsWith("|---"))
    .map((l) =>
      l
        .split("|")
        .map((c) => c.trim())
        .filter((c) => c !== ""),
    )
    .slice(1); // header
}

/** The generated table row whose cells mention this operation name in backticks or as the first cell. */
function rowOf(markdown: string, operation: string): string {
  const row = markdown.split("\n").find((l) => l.startsWith(`| ${operation} |`));
  expect(row, `no row for ${operation}`).toBeDefined();
  return row!;
}

describe("reference section 2: the operations across the three bindings", () => {
  const rows = tableRows("2. The operations across the three bindings", "Notes:");
  const ops = doc("v1.0.1/a2a_operations.md");
  it("has the eleven rows", () => expect(rows).toHaveLength(11));
  it.each(rows.map((r) => [r[1]!, r]))("%s", (_name, r) => {
    const [, method, route, returns] = r as [string, string, string, string];
    const row = rowOf(ops, method);
    expect(row).toContain(`| \`${method}\` | \`${method}\` |`); // JSON-RPC method = gRPC RPC
    expect(row).toContain("`" + route + "`");
    const type = returns
      .replace(/^Stream of /, "")
      .split(":")[0]!
      .trim();
    expect(row).toContain("`" + type + "`");
    if (returns.startsWith("Stream of")) expect(row).toContain("stream of `" + type + "`");
    // Every route also exists under /{tenant} (the notes under the table).
    const [verb, path] = route.split(" ");
    expect(row).toContain("`" + `${verb} /{tenant}${path}` + "`");
  });
});

describe("reference section 4: names and routes", () => {
  const rows = tableRows("Names and routes", "What the v0.3.0 documents get wrong");
  const versions = doc("a2a_versions.md");
  it("has the eleven rows", () => expect(rows).toHaveLength(11));
  it.each(rows.map((r) => [r[0]!, r]))("%s", (_name, r) => {
    const [op, jsonrpc03, grpc03, rest03, rest10] = r as [string, string, string, string, string];
    const row = rowOf(versions, op);
    const cells = row.split("|").map((c) => c.trim());
    // cells: "", operation, v0.3 JSON-RPC, v0.3 gRPC, v0.3 REST, v1 JSON-RPC, v1 gRPC, v1 REST, ""
    const fact = (cell: string, v: string) =>
      v === "none" ? expect(cell).toBe("none") : expect(cell).toContain("`" + v + "`");
    fact(cells[2]!, jsonrpc03);
    fact(cells[3]!, grpc03);
    fact(cells[4]!, rest03);
    fact(cells[7]!, rest10);
    if (jsonrpc03 !== "none") {
      expect(cells[5]).toBe("`" + op + "`");
      expect(cells[6]).toBe("`" + op + "`");
    }
  });
});
