/**
 * The printing context the a2a.json codec emitters (jsonrpc-codec-*.ts) share:
 * the file, the target, and the dialect's rules of each message
 * (src/compat/dialect-ir.ts), with the symbols they print.
 */
import type { DescMessage } from "@bufbuild/protobuf";
import type { GeneratedFile, ImportSymbol, Printable } from "@bufbuild/protoplugin";
import type { DialectIr, MessageRules } from "../../compat/dialect-ir.js";
export { camel, messageOf, type FieldRule, type MessageRule, type MessageRules } from "../../compat/dialect-ir.js";
import { compatJsonHelper, runtimeModule } from "../print/runtime-entries.js";
import { paramNames } from "../print/unused-params.js";
import { wrapLine } from "../print/wrap-line.js";

/** What the emitters share: the file, the target, the table, and the symbols they print. */
export interface CodecCtx {
  readonly f: GeneratedFile;
  /** ts: types printed; js: none. */
  readonly typed: boolean;
  /** The dialect of the version's messages (src/compat/dialect-ir.ts). */
  readonly dialect: DialectIr;
  /** Its rules of each message, by type name. */
  readonly rules: ReadonlyMap<string, MessageRules>;
  /** A helper of the runtime's compat-json module. */
  readonly h: (name: string) => string;
  /** Printed only when typed: a type annotation such as `: JsonValue`. */
  readonly t: (...p: Printable[]) => Printable[];
  readonly jsonValue: ImportSymbol;
  readonly jsonObject: ImportSymbol;
  readonly at: string;
  readonly loss: ImportSymbol;
}

/** The runtime module whose helpers the codec calls (packages/runtime/src/compat/compat-json.ts). */

export function codecCtx(f: GeneratedFile, typed: boolean, dialect: DialectIr): CodecCtx {
  return {
    f,
    typed,
    dialect,
    rules: dialect.messages,
    h: compatJsonHelper,
    t: (...p) => (typed ? p : []),
    jsonValue: f.import("JsonValue", "@bufbuild/protobuf", true),
    jsonObject: f.import("JsonObject", "@bufbuild/protobuf", true),
    at: compatJsonHelper("At"),
    loss: f.import("Loss", runtimeModule, true),
  };
}

/** The rules of a message type the codec writes. */
export function rulesOf(c: CodecCtx, m: DescMessage): MessageRules {
  const r = c.rules.get(m.typeName);
  if (!r) throw new Error(`jsonrpc codec: ${m.typeName} is not a message of the version's file`);
  return r;
}

/** Prints a function: typed in ts, plain in js. */
export function printFunction(
  c: CodecCtx,
  doc: string,
  name: string,
  params: readonly (readonly [string, Printable[]])[],
  returns: Printable[],
  body: readonly Printable[][],
): void {
  const { f } = c;
  f.print(f.jsDoc(doc));
  const used = paramNames(body.map((line) => [...line]));
  const ps: Printable[] = params.flatMap(([p, t], i) => [i > 0 ? ", " : "", used(p), ...c.t(": ", ...t)]);
  f.print("function ", name, "(", ...ps, ")", ...c.t(": ", ...returns), " {");
  for (const line of body) for (const l of wrapLine(["  ", ...line])) f.print(...l);
  f.print("}");
  f.print();
}

/** The parameters every coder takes: the value (`json`), its place (`path`), what was lost (`lost`). */
export const coderParams = (c: CodecCtx): [string, Printable[]][] => [
  ["json", [c.jsonValue]],
  ["path", [c.at]],
  ["lost", [c.loss, "[]"]],
];

/** A JSON string literal. */
export const lit = (s: string): string => JSON.stringify(s);

/** `json["key"]`. */
export const prop = (obj: string, key: string): string => `${obj}[${lit(key)}]`;

/** The printed width of a line. */
const width = (line: readonly Printable[]): number =>
  line.reduce<number>(
    (n, p) => n + (typeof p === "string" ? p.length : typeof p === "object" && "name" in p ? p.name.length : 8),
    0,
  );

/** `if (test) statement` on one line, or on two when it is longer than the generated code's lines. */
export function fold(indent: string, test: Printable[], statement: Printable[]): Printable[][] {
  const one = [indent, "if (", ...test, ") ", ...statement];
  return width(one) + 2 <= 120
    ? [one]
    : [
        [indent, "if (", ...test, ")"],
        [indent, "  ", ...statement],
      ];
}
