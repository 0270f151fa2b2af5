/**
 * Writes the exported API of the direct conversions (compat-json-module.ts):
 * the table of conversions by type name (`a2aCompatJson`, which the version
 * bridge serves older JSON-RPC with), the union type of the newer messages
 * that have an older a2a.json form, and two functions keyed by it, `toOlderJson(message)` and
 * `fromOlderJson(schema, json)`, typed so that each newer message type gets
 * its own result type. They look the conversion up in the module's table
 * (`a2aCompatJson`) through the runtime's writeOlderJson/readOlderJson.
 * Built with printables only; the same tree gives the ts, js and dts targets.
 */
import type { DescMessage } from "@bufbuild/protobuf";
import type { GeneratedFile, Printable, Target } from "@bufbuild/protoplugin";
import { compatJsonHelper, runtimeModule } from "../print/runtime-entries.js";
import type { NamespacedShape } from "../print/shape-imports.js";

export interface CompatJsonApi {
  readonly older: string;
  readonly newer: string;
  /** Each pair, in the table's order. */
  readonly entries: readonly CompatJsonEntry[];
  /** The table's name. */
  readonly table: string;
  /** The converter (imported from the messages module), for the counterpart of a newer type. */
  readonly converter: Printable;
  /** A newer message's type, through the namespace import of its file. */
  readonly shape: NamespacedShape;
}

/** One pair: its older type name, its newer message and the names of its two functions. */
export interface CompatJsonEntry {
  readonly older: string;
  readonly newer: DescMessage;
  readonly fromOlder: string;
  readonly toOlder: string;
  /** Whether toOlder may give undefined (no a2a.json form); the table writes {} then. */
  readonly mayLeaveOut: boolean;
}

const UNION = "OlderJsonMessage";

/** Prints the union type and the two functions. */
export function printCompatJsonApi(f: GeneratedFile, target: Target, api: CompatJsonApi): void {
  printTable(f, target, api);
  if (target !== "js") printUnion(f, api);
  const loss = f.import("Loss", runtimeModule, true);
  const jsonValue = f.import("JsonValue", "@bufbuild/protobuf", true);
  const onLoss: Printable[] = ["onLoss?: (loss: ", loss, ") => void"];
  const toDoc =
    `Writes a ${api.newer} message in the ${api.older} JSON-RPC (a2a.json) form of its counterpart.\n` +
    "What cannot be carried over is returned in `lost` and passed to `onLoss`.";
  const fromDoc =
    `Reads the ${api.older} JSON-RPC (a2a.json) form of the counterpart of \`schema\` as a ${api.newer} message.\n` +
    "What cannot be carried over is returned in `lost` and passed to `onLoss`; a value the older\n" +
    "version could not read throws CompatJsonError. Strings are taken as they are: the servers and the\n" +
    "JSON-RPC client refuse JSON with a lone surrogate before it gets here.";
  // Signatures one parameter a line, as a formatter would print them.
  const toSig: Printable[] = [
    "(\n  message: ",
    UNION,
    ",\n  ",
    onLoss,
    ",\n): { json: ",
    jsonValue,
    "; lost: ",
    loss,
    "[] }",
  ];
  const genMessage = f.import("GenMessage", "@bufbuild/protobuf/codegenv2", true);
  const fromSig: Printable[] = [
    `<T extends ${UNION}>(\n  schema: `,
    genMessage,
    "<T>,\n  json: ",
    jsonValue,
    ",\n  ",
    onLoss,
    ",\n): { message: T; lost: ",
    loss,
    "[] }",
  ];
  f.print();
  f.print(f.jsDoc(toDoc));
  if (target === "dts") {
    f.print(f.export("declare function", "toOlderJson"), toSig, ";");
    f.print();
    f.print(f.jsDoc(fromDoc));
    f.print(f.export("declare function", "fromOlderJson"), fromSig, ";");
    return;
  }
  const typed = target === "ts";
  const write = compatJsonHelper("writeOlderJson");
  const read = compatJsonHelper("readOlderJson");
  f.print(f.export("function", "toOlderJson"), typed ? toSig : "(message, onLoss)", " {");
  f.print("  return ", write, "(", api.table, ", message, onLoss);");
  f.print("}");
  f.print();
  f.print(f.jsDoc(fromDoc));
  f.print(f.export("function", "fromOlderJson"), typed ? fromSig : "(schema, json, onLoss)", " {");
  f.print("  return ", read, "(", api.table, ", ", api.converter, ".counterpart(schema.typeName), json, onLoss);");
  f.print("}");
}

/** `export type OlderJsonMessage = A | B | …`, a few names a line. */
function printUnion(f: GeneratedFile, api: CompatJsonApi): void {
  f.print();
  f.print(f.jsDoc(`The ${api.newer} messages that have an ${api.older} JSON-RPC (a2a.json) form.`));
  f.print(f.export("type", UNION), " =");
  let line: Printable[] = [];
  let width = 2;
  for (const { newer: d } of api.entries) {
    const name = api.shape(d);
    if (width + name.length + 3 > 118 && line.length > 0) {
      f.print("  ", line);
      line = [];
      width = 2;
    }
    line.push(line.length === 0 ? "| " : " | ", name);
    width += name.length + 3;
  }
  f.print("  ", line, ";");
}

/** The table: older type → its reader, newer type → its writer. */
function printTable(f: GeneratedFile, target: Target, api: CompatJsonApi): void {
  const tableType = compatJsonHelper("CompatJsonTable");
  f.print();
  f.print(
    f.jsDoc(
      `The ${api.older} JSON-RPC conversions by type name: older request type → newer message, newer message\n` +
        `type → older JSON. The version bridge serves ${api.older} JSON-RPC with them.`,
    ),
  );
  if (target === "dts") {
    f.print(f.export("declare const", api.table), ": ", tableType, ";");
    return;
  }
  const typed = target === "ts";
  f.print(f.export("const", api.table), typed ? [": ", tableType] : [], " = {");
  f.print("  fromOlder: {");
  for (const e of api.entries) f.print("    ", JSON.stringify(e.older), ": ", e.fromOlder, ",");
  f.print("  },");
  f.print("  toOlder: {");
  for (const e of api.entries) f.print("    ", JSON.stringify(e.newer.typeName), ": ", writer(f, typed, api, e), ",");
  f.print("  },");
  f.print("};");
}

/** The entry's writer; one that may give no form is wrapped to write {}. */
function writer(f: GeneratedFile, typed: boolean, api: CompatJsonApi, e: CompatJsonEntry): Printable {
  if (!e.mayLeaveOut) return e.toOlder;
  if (!typed) return ["(m, a, lost) => ", e.toOlder, "(m, a, lost) ?? {}"];
  const at = compatJsonHelper("At");
  const loss = f.import("Loss", runtimeModule, true);
  return ["(m: ", api.shape(e.newer), ", a: ", at, ", lost: ", loss, "[]) => ", e.toOlder, "(m, a, lost) ?? {}"];
}
