/**
 * The rule of packages/runtime/src/core/records.ts, checked over the runtime's sources with the type checker:
 * no object literal starts with a spread and then adds a name the spread object's type does not have
 * (`{ ...headers, "content-length": n }`, `{ ...a, ...b }` where b brings new names). On Node 20 every such
 * object gets a map of its own, and walking or reading its names falls off every inline cache (records.ts).
 * A literal whose spreads only replace names the type already has (`{ ...task, history }`) passes, as does
 * one whose own names come first (`{ a, ...rest }`). An optional name counts as lacking, as it may be absent
 * at run time (a protobuf-es message holds no unset message field): the check reads types, not values.
 *
 * Literals made once per server, client or process, or for a rare event, never per call, are listed in
 * NOT_PER_CALL with the reason; anything else the check finds fails the test with its file, line and the names
 * it adds.
 */
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Node, Project, type ObjectLiteralExpression, type Type } from "ts-morph";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** `file: first member → names added` of a literal → why it is not made per call. */
const NOT_PER_CALL: Readonly<Record<string, string>> = {
  "packages/runtime/src/auth/authenticate.ts: ...scheme → name": "once per authenticate(), per scheme",
  "packages/runtime/src/task/postgres/pipeline.ts: ...(this.pool.options as pg.ClientConfig) → pipeline":
    "once per pipelined connection opened",
  "packages/runtime/src/card/sign.ts: ...options.protectedHeader → alg, typ, kid, ...jku": "once per card signed",
  "packages/runtime/src/card/sign.ts: ...card → signatures": "once per card signed",
  "packages/runtime/src/client/client-for-card.ts: ...rest → url, ...interceptors, ...tenant, ...fetch":
    "once per client made from a card",
  "packages/runtime/src/client/oauth-client-credentials.ts: ...rest → ...body, ...signal":
    "once per token request (its fetch init)",
  "packages/runtime/src/frameworks/express.ts: ...options → readBody": "once per Express middleware made",
  "packages/runtime/src/core/definition.ts: ...tables → service, operations, byJsonRpcMethod, byName":
    "once per service definition",
  "packages/runtime/src/server/dual-version.ts: ...(options.jsonrpcPath !== undefined ? { jsonrpcPath: options.jsonrpcPath } : {}) → *":
    "once per side of a dual-version server",
  "packages/runtime/src/server/dual-version.ts: ...(options.agentCardMaxAge !== undefined ? { maxAge: options.agentCardMaxAge } : {}) → ...headers":
    "once per dual-version server (the merged card's options)",
  "packages/runtime/src/server/http-server.ts: ...(options.agentCardMaxAge !== undefined ? { maxAge: options.agentCardMaxAge } : {}) → ...headers":
    "once per server (the agent card's options)",
  "packages/runtime/src/task/postgres/postgres-store.ts: ...retentionOf(options) → schema, everyMs, onError":
    "once per store (its pruning options)",
  "packages/runtime/src/task/postgres/prune.ts: ...options → terminalTtlMs, interruptedTtlMs":
    "once per pruneEvents() call",
};

/** The names a spread of a value of this type brings (the apparent properties of each union member). */
function namesOf(type: Type): Set<string> | undefined {
  if (type.isAny() || type.isUnknown()) return undefined;
  const members = type.isUnion() ? type.getUnionTypes() : [type];
  const names = new Set<string>();
  for (const t of members) for (const p of t.getApparentProperties()) if (!p.isOptional()) names.add(p.getName());
  return names;
}

/** A name as the key shows it: a symbol-keyed one (TypeScript's `__@name@id`) as `[name]`. */
const shown = (name: string) => name.replace(/^__@(.+)@\d+$/, "[$1]");

/** The names `literal` adds after its leading spread, or [] (also when a spread's type is unknown). */
function addedNames(literal: ObjectLiteralExpression): string[] {
  const [first, ...rest] = literal.getProperties();
  if (!first || !Node.isSpreadAssignment(first)) return [];
  const had = namesOf(first.getExpression().getType());
  if (!had) return [];
  const added: string[] = [];
  for (const p of rest) {
    if (Node.isSpreadAssignment(p)) {
      const brought = namesOf(p.getExpression().getType());
      if (!brought) return [];
      for (const n of brought) if (!had.has(n)) added.push(`...${shown(n)}`);
      for (const n of brought) had.add(n);
    } else if (Node.isPropertyAssignment(p) || Node.isShorthandPropertyAssignment(p) || Node.isMethodDeclaration(p)) {
      const name = p.getSymbol()?.getName() ?? p.getName();
      if (!had.has(name)) added.push(name);
      had.add(name);
    }
  }
  return added;
}

describe("runtime object literals (core/records.ts's rule)", () => {
  const project = new Project({ tsConfigFilePath: resolve(root, "packages/runtime/tsconfig.json") });
  const files = project.getSourceFiles().filter((f) => f.getFilePath().includes("/packages/runtime/src/"));

  it("reads the runtime's sources", () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it("has no literal that spreads an object and adds names to it, but those not made per call", () => {
    const found: string[] = [];
    const listed = new Set<string>();
    for (const file of files) {
      const path = relative(root, file.getFilePath());
      for (const literal of file.getDescendants().filter(Node.isObjectLiteralExpression)) {
        const added = addedNames(literal);
        if (added.length === 0) continue;
        const names = added.length > 4 ? "*" : added.join(", ");
        const key = `${path}: ${literal.getProperties()[0]!.getText()} → ${names}`;
        if (key in NOT_PER_CALL) listed.add(key);
        else found.push(`${key} (line ${literal.getStartLineNumber()}): ${literal.getText()}`);
      }
    }
    expect(found).toEqual([]);
    // An entry of NOT_PER_CALL that no longer matches anything is stale.
    expect(Object.keys(NOT_PER_CALL).filter((k) => !listed.has(k))).toEqual([]);
  });

  it("finds a literal that adds a name, and passes one that only replaces names", () => {
    const probe = new Project({ useInMemoryFileSystem: true, compilerOptions: { strict: true } });
    const file = probe.createSourceFile(
      "probe.ts",
      [
        "const h: { a: string } = { a: '1' };",
        "export const adds = { ...h, b: '2' };",
        "export const replaces = { ...h, a: '3' };",
        "export const ownFirst = { b: '2', ...h };",
        "const more: { c: string } = { c: '4' };",
        "export const spreadAdds = { ...h, ...more };",
      ].join("\n"),
    );
    const added = file.getDescendants().filter(Node.isObjectLiteralExpression).map(addedNames);
    expect(added).toEqual([[], ["b"], [], [], [], ["...c"]]);
  });
});
