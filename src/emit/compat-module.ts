/**
 * Writes `a2a_compat.{ts,js,d.ts}`: the conversions between two versions'
 * proto messages, generated from the plan (checked by compat-plan.ts), with
 * the converter over them (compat-proto-module.ts); when the older version
 * has a JSON-RPC dialect, the direct conversions of its payloads
 * (compat-json-module.ts); the operation table and the version bridges.
 */
import type { GeneratedFile, Printable, Schema } from "@bufbuild/protoplugin";
import type { OperationPair } from "../compat/version-links.js";
import type { CompatPlan } from "../compat/compat-plan.js";
import { printLiteral } from "./literal.js";
import { emitProtoConversions } from "./compat-proto-module.js";
import { printPreamble } from "./preamble.js";
import { runtimeModule } from "./routes-module.js";
import { emitCompatJson, type CompatJsonInputs } from "./compat-json-module.js";

/** protoc-gen-es names a file's descriptor `file_` + its path without `.proto`, other characters as "_". */
const fileDescName = (protoFile: string) => "file_" + protoFile.replace(/\.proto$/, "").replace(/[^A-Za-z0-9]/g, "_");

/** One version's side of the cross-version module: its proto file and the exported name of its definition. */
export interface CompatSide {
  readonly file: string;
  readonly definition: string;
}

export function emitCompatModule(
  schema: Schema<object>,
  target: "ts" | "js" | "dts",
  plan: CompatPlan,
  newer: CompatSide,
  older: CompatSide,
  operations: readonly OperationPair[],
  json?: Omit<CompatJsonInputs, "olderA2a" | "olderDefinition" | "converter">,
): void {
  const newerFile = newer.file;
  const olderFile = older.file;
  const f = schema.generateFile(`a2a_compat${target === "dts" ? ".d.ts" : "." + target}`);
  printPreamble(f, schema, newerFile);
  f.print(`// Conversions between ${plan.older} (${olderFile}) and ${plan.newer} (${newerFile});`);
  f.print(`// see a2a_compat.md for the field-by-field table.`);
  f.print();
  const a2aModule = (file: string) => `./${file.replace(/\.proto$/, "")}_a2a.js`;
  // Each version's definition has its own name (names.ts: definitionName); the handler and
  // client types are derived from it, so the two versions' same-named types need no aliases.
  const newerDef = f.import(newer.definition, a2aModule(newerFile), target === "dts");
  const olderDef = f.import(older.definition, a2aModule(olderFile), target === "dts");
  const typeOf = (
    generic: "A2aHandler" | "A2aClient" | "BridgedHandler" | "JsonRpcClient",
    def: Printable,
  ): Printable[] => [f.import(generic, runtimeModule, true), "<(typeof ", def, ')["service"]>'];
  const newerHandler = typeOf("A2aHandler", newerDef);
  const olderSide = typeOf("BridgedHandler", olderDef);
  const newerClient = typeOf("A2aClient", newerDef);
  const olderClient = [...typeOf("A2aClient", olderDef), " | ", ...typeOf("JsonRpcClient", olderDef)];
  const converterType = f.import("Converter", runtimeModule, true);
  const jsonTable = () =>
    json
      ? emitCompatJson(f, target, plan, {
          ...json,
          olderA2a: a2aModule(olderFile),
          olderDefinition: older.definition,
          converter: "a2aCompat",
        })
      : undefined;
  if (target === "dts") {
    f.print(f.export("declare const", "a2aCompat"), ": ", converterType, ";");
    jsonTable();
    f.print(
      f.export("declare const", "a2aOperationPairs"),
      ": readonly ",
      f.import("OperationPair", runtimeModule, true),
      "[];",
    );
    f.print(
      f.export("declare function", "bridgeToOlder"),
      "(handler: ",
      ...newerHandler,
      ", onLoss?: (operation: string, loss: ",
      f.import("Loss", runtimeModule, true),
      ") => void): ",
      ...olderSide,
      ";",
    );
    f.print(
      f.export("declare const", "a2aOperations"),
      ": ",
      f.import("OperationCorrespondence", runtimeModule, true),
      ";",
    );
    f.print(
      f.export("declare function", "clientForOlder"),
      "(client: ",
      ...olderClient,
      ", onLoss?: (operation: string, loss: ",
      f.import("Loss", runtimeModule, true),
      ") => void): ",
      ...newerClient,
      ";",
    );
    emitDualVersion(f, target, newerDef, newerHandler);
    return;
  }
  const typed = target === "ts";
  const descFiles = schema.allFiles.filter((d) => d.proto.name === newerFile || d.proto.name === olderFile);
  emitProtoConversions(f, target, plan, descFiles, [
    f.import(fileDescName(newerFile), `./${newerFile.replace(/\.proto$/, "")}_pb.js`),
    f.import(fileDescName(olderFile), `./${olderFile.replace(/\.proto$/, "")}_pb.js`),
  ]);
  const table = jsonTable();
  const withJson = table ? `, json: ${table}` : "";
  f.print();
  f.print(f.jsDoc(`Each ${plan.older} operation and the ${plan.newer} operation it corresponds to.`));
  f.print(
    f.export("const", "a2aOperationPairs"),
    ...(typed ? [": readonly ", f.import("OperationPair", runtimeModule, true), "[]"] : []),
    ` = ${printLiteral(operations)};`,
  );
  f.print();
  f.print(f.jsDoc(`Each operation's names in both versions and every binding: JSON-RPC methods, routes, gRPC paths.`));
  f.print(
    f.export("const", "a2aOperations"),
    ...(typed ? [": ", f.import("OperationCorrespondence", runtimeModule, true)] : []),
    " = ",
    f.import("operationCorrespondence", runtimeModule),
    "(",
    olderDef,
    ", ",
    newerDef,
    ", a2aOperationPairs);",
  );
  f.print();
  f.print(
    f.jsDoc(
      `Serves ${plan.older} clients with a ${plan.newer} handler (a version bridge): the ${plan.older} definition, ` +
        "handler and JSON-RPC operations served in one pass, for a server's options or a dual-version side.",
    ),
  );
  const lossType = f.import("Loss", runtimeModule, true);
  const sig = typed
    ? ["handler: ", ...newerHandler, ", onLoss?: (operation: string, loss: ", lossType, ") => void): ", ...olderSide]
    : ["handler, onLoss) "];
  f.print(f.export("function", "bridgeToOlder"), "(", ...sig, typed ? " {" : "{");
  f.print(
    "  return ",
    f.import("createBridgeHandler", runtimeModule),
    "({ older: ",
    olderDef,
    ", newer: ",
    newerDef,
    `, handler, converter: a2aCompat, operations: a2aOperationPairs${withJson}, ...(onLoss ? { onLoss } : {}) });`,
  );
  f.print("}");
  f.print();
  f.print(
    f.jsDoc(
      `A ${plan.newer} client over a ${plan.older} client: call an older agent with newer types. ` +
        "Operations the older version lacks fail with UnsupportedOperationError. " +
        "A JSON-RPC client's calls (its jsonrpc property) carry a2a.json in one pass.",
    ),
  );
  const csig = typed
    ? ["client: ", ...olderClient, ", onLoss?: (operation: string, loss: ", lossType, ") => void): ", ...newerClient]
    : ["client, onLoss) "];
  f.print(f.export("function", "clientForOlder"), "(", ...csig, typed ? " {" : "{");
  f.print(
    "  return ",
    f.import("createClientBridge", runtimeModule),
    "({ older: ",
    olderDef,
    ", newer: ",
    newerDef,
    `, client, converter: a2aCompat, operations: a2aOperationPairs${withJson}, ...(onLoss ? { onLoss } : {}) });`,
  );
  f.print("}");
  f.print();
  emitDualVersion(f, target, newerDef, newerHandler);
}

/** `dualVersionHttpHandler`: both versions at the same URLs from the newer handler, bridged by bridgeToOlder. */
function emitDualVersion(f: GeneratedFile, target: "ts" | "js" | "dts", newerDef: Printable, handler: Printable[]) {
  const shared = f.import("DualVersionSharedOptions", runtimeModule, true);
  const core = f.import("CoreHandler", runtimeModule, true);
  if (target === "dts") {
    f.print(
      f.export("declare function", "dualVersionHttpHandler"),
      "(handler: ",
      ...handler,
      ", options?: ",
      shared,
      "): ",
      core,
      ";",
    );
    return;
  }
  f.print(
    f.jsDoc(
      "One HTTP handler serving both versions at the same URLs (createDualVersionHttpHandler): the handler, " +
        "and bridgeToOlder of it for the older version's calls. options.onLoss also hears what the bridge loses.",
    ),
  );
  const sig =
    target === "ts" ? ["handler: ", ...handler, ", options?: ", shared, "): ", core, " {"] : ["handler, options) {"];
  f.print(f.export("function", "dualVersionHttpHandler"), "(", ...sig);
  f.print(
    "  return ",
    f.import("createDualVersionHttpHandler", runtimeModule),
    "({ ...options, newer: { definition: ",
    newerDef,
    ", handler }, older: bridgeToOlder(handler, options?.onLoss) });",
  );
  f.print("}");
}
