/**
 * OpenTelemetry is optional: an agent that does not import
 * @protoc-gen-a2a/runtime/otel loads none of it. A child Node process gets a
 * module resolve hook that refuses every "@opentelemetry/…" specifier; every
 * other entry of the runtime (and the example agent's modules) must import
 * under it, and the otel entry must not (which shows the hook works).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const ENTRIES = [
  "@protoc-gen-a2a/runtime",
  "@protoc-gen-a2a/runtime/task",
  "@protoc-gen-a2a/runtime/postgres",
  "@protoc-gen-a2a/runtime/auth",
  "@protoc-gen-a2a/runtime/card-signing",
  "@protoc-gen-a2a/runtime/compat-json",
];

function hookFiles(): string {
  const dir = mkdtempSync(join(tmpdir(), "a2a-otel-optional-"));
  const hooks = join(dir, "hooks.mjs");
  writeFileSync(
    hooks,
    [
      "export async function resolve(specifier, context, next) {",
      '  if (specifier.startsWith("@opentelemetry/")) throw new Error("OpenTelemetry loaded: " + specifier);',
      "  return next(specifier, context);",
      "}",
    ].join("\n"),
  );
  const register = join(dir, "register.mjs");
  writeFileSync(
    register,
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  return register;
}

async function importUnderHook(register: string, specifiers: readonly string[]): Promise<string> {
  const code = specifiers.map((s) => `await import(${JSON.stringify(s)});`).join("\n");
  try {
    await run(process.execPath, ["--import", pathToFileURL(register).href, "--input-type=module", "-e", code], {
      cwd: process.cwd(),
    });
    return "imported";
  } catch (e) {
    return String((e as { stderr?: string }).stderr ?? e);
  }
}

describe("OpenTelemetry is an optional peer", () => {
  const register = hookFiles();

  it("every runtime entry but otel, and the example agent, load without it", async () => {
    const example = pathToFileURL(join(process.cwd(), "dist-examples/examples/echo-agent/server.js")).href;
    expect(await importUnderHook(register, [...ENTRIES, example])).toBe("imported");
  });

  it("the otel entry needs it (the hook refuses it)", async () => {
    expect(await importUnderHook(register, ["@protoc-gen-a2a/runtime/otel"])).toMatch(
      /OpenTelemetry loaded: @opentelemetry\/api/,
    );
  });
});
