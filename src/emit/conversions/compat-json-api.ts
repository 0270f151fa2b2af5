/**
 * Writes the exported API of the direct conversions (compat-json-module.ts):
 * the table of conversions by type name (`a2aCompatJson`, which the version
 * bridge serves older JSON-RPC with), the union type of the newer messages
 * that have an older a2a.json form, and two functions keyed by it, `toOlderJson(message)` and
 * `fromOlderJson(schema, json)`, typed so that each newer message type gets
 * its own result type. They look the conversion up in the module's table
 * (`a2aCompatJson`) through the runtime's writeOlderJson/readOlderJson.
 * Built with printables only; the target's printer (target-printer.ts) writes each declaration.
 */
import type { DescMessage } from "@bufbuild/protobuf";
import type { GeneratedFile, Printable } from "@bufbuild/protoplugin";
import { compatJsonHelper, runtimeModule } from "../print/runtime-entries.js";
import type { NamespacedShape } from "../print/shape-imports.js";
import type { Param, TargetPrinter } from "../print/target-printer.js";

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

/** Prints the table, the union type and the two functions (`typed`: the table's values with types). */
export function printCompatJsonApi(f: GeneratedFile, out: TargetPrinter, typed: boolean, api: CompatJsonApi): void {
  printTable(f, out, typed, api);
  out.types(() => printUnion(f, api));
  const loss = f.import("Loss", runtimeModule, true);
  const jsonValue = f.import("JsonValue", "@bufbuild/protobuf", true);
  const onLoss: Param = ["onLoss?", ["(loss: ", loss, ") => void"]];
  f.print();
  f.print(
    f.jsDoc(
      `Writes a message of ${api.newer} in the ${api.older} JSON-RPC (a2a.json) form of its counterpart.\n` +
        "What cannot be carried over is returned in `lost` and passed to `onLoss`.",
    ),
  );
  out.function(f, {
    name: "toOlderJson",
    params: [["message", UNION], onLoss],
    returns: ["{ json: ", jsonValue, "; lost: ", loss, "[] }"],
    body: [["  return ", compatJsonHelper("writeOlderJson"), "(", api.table, ", message, onLoss);"]],
  });
  f.print();
  f.print(
    f.jsDoc(
      `Reads the ${api.older} JSON-RPC (a2a.json) form of the counterpart of \`schema\` as a message of ` +
        `${api.newer}.\n` +
        "What cannot be carried over is returned in `lost` and passed to `onLoss`; a value the older\n" +
        "version could not read throws CompatJsonError. Strings are taken as they are: the servers and the\n" +
        "JSON-RPC client refuse JSON with a lone surrogate before it gets here.",
    ),
  );
  const read = compatJsonHelper("readOlderJson");
  out.function(f, {
    name: "fromOlderJson",
    generics: `<T extends ${UNION}>`,
    params: [
      ["schema", [f.import("GenMessage", "@bufbuild/protobuf/codegenv2", true), "<T>"]],
      ["json", jsonValue],
      onLoss,
    ],
    returns: ["{ message: T; lost: ", loss, "[] }"],
    body: [["  return ", read, "(", api.table, ", ", api.converter, ".counterpart(schema.typeName), json, onLoss);"]],
  });
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
function printTable(f: GeneratedFile, out: TargetPrinter, typed: boolean, api: CompatJsonApi): void {
  f.print();
  f.print(
    f.jsDoc(
      `The ${api.older} JSON-RPC conversions by type name: older request type → newer message, newer message\n` +
        `type → older JSON. The version bridge serves ${api.older} JSON-RPC with them.`,
    ),
  );
  const rows = (entries: [string, Printable][]) =>
    entries.map(([name, fn]) => ["    ", JSON.stringify(name), ": ", fn, ",\n"]);
  out.constant(f, {
    name: api.table,
    type: compatJsonHelper("CompatJsonTable"),
    value: [
      "{\n  fromOlder: {\n",
      rows(api.entries.map((e) => [e.older, e.fromOlder])),
      "  },\n  toOlder: {\n",
      rows(api.entries.map((e) => [e.newer.typeName, writer(f, typed, api, e)])),
      "  },\n}",
    ],
  });
}

/** The entry's writer; one that may give no form is wrapped to write {}. */
function writer(f: GeneratedFile, typed: boolean, api: CompatJsonApi, e: CompatJsonEntry): Printable {
  if (!e.mayLeaveOut) return e.toOlder;
  const call: Printable[] = [e.toOlder, "(from, path, lost) ?? {}"];
  if (!typed) return ["(from, path, lost) => ", call];
  const at = compatJsonHelper("At");
  const loss = f.import("Loss", runtimeModule, true);
  return ["(from: ", api.shape(e.newer), ", path: ", at, ", lost: ", loss, "[]) => ", call];
}
