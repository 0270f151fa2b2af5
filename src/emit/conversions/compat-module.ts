/**
 * Writes the cross-version modules, one concern each, for every target
 * (ts, js, d.ts):
 *   a2a_compat_messages  the conversions between the two versions' proto
 *                        messages, generated from the plan (checked by
 *                        compat-plan.ts), and `a2aCompat`, the converter over
 *                        them (compat-proto-module.ts);
 *   a2a_compat_jsonrpc   when the older version has a JSON-RPC dialect, the
 *                        direct conversions of its payloads (a2a.json ↔ newer
 *                        messages, compat-json-module.ts);
 *   a2a_compat           what users call: the operation table, the version
 *                        bridges, clientForCard and the dual-version handler,
 *                        with the two modules' exports re-exported, so one
 *                        import serves.
 */
import type { GeneratedFile, ImportSymbol, Printable, Target } from "@bufbuild/protoplugin";
import type { OperationPair } from "../../compat/version-links.js";
import type { CompatPlan } from "../../compat/compat-plan.js";
import { params, prose } from "../print/code-layout.js";
import { printLiteral } from "../print/literal.js";
import { emitProtoConversions } from "./compat-proto-module.js";
import { namespacedShapes } from "../print/shape-imports.js";
import type { ConversionIr } from "../../compat/conversion-ir.js";
import type { ModuleFiles } from "../../host/output-files.js";
import { compatJsonNamespace, protocolModule, runtimeModule, taskModule } from "../print/runtime-entries.js";
import { emitCompatJson, type CompatJsonInputs } from "./compat-json-module.js";

/** protoc-gen-es names a file's descriptor `file_` + its path without `.proto`, other characters as "_". */
const fileDescName = (protoFile: string) => "file_" + protoFile.replace(/\.proto$/, "").replace(/[^A-Za-z0-9]/g, "_");

/** One version's side of the cross-version module: its proto file and the exported name of its definition. */
export interface CompatSide {
  readonly file: string;
  readonly definition: string;
  /** Major.Minor, e.g. "0.3". */
  readonly protocolVersion: string;
}

/** What every part of the module prints with: the file, its target and the two versions' printables. */
interface ModuleCtx {
  readonly f: GeneratedFile;
  readonly target: Target;
  readonly typed: boolean;
  readonly plan: CompatPlan;
  readonly newerDef: Printable;
  readonly olderDef: Printable;
  readonly newerHandler: Printable[];
  readonly olderSide: Printable[];
  readonly newerClient: Printable[];
  readonly olderClient: Printable[];
  readonly loss: Printable;
  /** The older protocol version, Major.Minor. */
  readonly olderVersion: string;
  /** `a2aCompat`, imported from the messages module. */
  readonly converter: ImportSymbol;
  /** `a2aCompatJson`, imported from the JSON-RPC module, when there is one. */
  readonly jsonTable: ImportSymbol | undefined;
}

/** The file names of the three modules, without extension. */
const MODULES = { api: "a2a_compat", messages: "a2a_compat_messages", jsonrpc: "a2a_compat_jsonrpc" } as const;

export function emitCompatModule(
  files: ModuleFiles,
  plan: CompatPlan,
  newer: CompatSide,
  older: CompatSide,
  operations: readonly OperationPair[],
  ir: ConversionIr,
  json?: Omit<CompatJsonInputs, "olderA2a" | "olderDefinition" | "converter" | "ir" | "shape">,
): void {
  const { target } = files;
  const open = (name: string, what: string, sides: readonly CompatSide[] = [], helpers = false) =>
    files.openWithNamespaces(
      name,
      newer.file,
      [
        // The messages' types, so none in JavaScript.
        ...(target === "js"
          ? []
          : sides.map((s) => ({ alias: namespaceOf(s), from: pbModule(s.file), typeOnly: true }))),
        ...(helpers ? [compatJsonNamespace(target === "dts")] : []),
      ],
      `${what} between ${plan.older} (${older.file}) and ${plan.newer} (${newer.file});`,
      "see a2a_compat.md for the field-by-field table.",
    );
  const messages = open(MODULES.messages, "Conversions of the proto messages", [newer, older]);
  emitMessages(messages, target, { newer, older, ir });
  const fj = json && open(MODULES.jsonrpc, "JSON-RPC (a2a.json) conversions", [newer], true);
  const table =
    json && fj
      ? emitCompatJson(fj, target, {
          ir,
          ...json,
          shape: namespacedShapes(fj, new Map([[newer.file, namespaceOf(newer)]])),
          olderA2a: a2aModule(older.file),
          olderDefinition: older.definition,
          converter: fj.import("a2aCompat", `./${MODULES.messages}.js`),
        })
      : undefined;
  const f = open(MODULES.api, "The version bridges");
  const c = moduleCtx(f, target, plan, newer, older, table);
  printReexports(c, json !== undefined);
  if (target === "dts") {
    printDeclarations(c);
    return;
  }
  printOperations(c, operations);
  printBridges(c);
  emitDualVersion(f, target, c.newerDef, c.newerHandler);
  if (json) printPushPayloads(c, older.protocolVersion);
}

/** The messages module: every pair's two functions and `a2aCompat`, or its declaration. */
function emitMessages(
  f: GeneratedFile,
  target: Target,
  { newer, older, ir }: { newer: CompatSide; older: CompatSide; ir: ConversionIr },
): void {
  if (target === "dts") {
    f.print(f.export("declare const", "a2aCompat"), ": ", f.import("Converter", runtimeModule, true), ";");
    return;
  }
  const shape = namespacedShapes(f, new Map([newer, older].map((s) => [s.file, namespaceOf(s)])));
  emitProtoConversions(f, target, ir, shape, [
    f.import(fileDescName(newer.file), pbModule(newer.file)),
    f.import(fileDescName(older.file), pbModule(older.file)),
  ]);
}

/** The name a version's messages module is imported under: `v10` for protocol 1.0. */
const namespaceOf = (s: CompatSide) => `v${s.protocolVersion.replace(/\D/g, "")}`;

/** The protobuf-es module of a proto file, from the output root. */
const pbModule = (protoFile: string) => `./${protoFile.replace(/\.proto$/, "")}_pb.js`;

/** What the API module passes on from the other two, so that `a2a_compat` alone serves every use. */
function printReexports(c: ModuleCtx, json: boolean): void {
  const { f } = c;
  f.print("// The conversions themselves, from their own modules.");
  f.print("export { ", c.converter, " };");
  if (json) {
    const from = `./${MODULES.jsonrpc}.js`;
    const values = ["a2aCompatJson", "fromOlderJson", "toOlderJson"].map((n) => f.import(n, from));
    f.print(
      "export { ",
      values.flatMap((v, i) => (i === 0 ? [v] : [", ", v])),
      " };",
    );
    if (c.target !== "js") f.print("export type { ", f.import("OlderJsonMessage", from, true), " };");
  }
}

/** The module of a version's definition, relative to a2a_compat. */
const a2aModule = (file: string) => `./${file.replace(/\.proto$/, "")}_a2a.js`;

function moduleCtx(
  f: GeneratedFile,
  target: ModuleCtx["target"],
  plan: CompatPlan,
  newer: CompatSide,
  older: CompatSide,
  jsonTable: string | undefined,
): ModuleCtx {
  // Each version's definition has its own name (names.ts: definitionName); the handler and
  // client types are derived from it, so the two versions' same-named types need no aliases.
  const newerDef = f.import(newer.definition, a2aModule(newer.file), target === "dts");
  const olderDef = f.import(older.definition, a2aModule(older.file), target === "dts");
  const typeOf = (
    generic: "A2aHandler" | "A2aClient" | "BridgedHandler" | "JsonRpcClient",
    def: Printable,
  ): Printable[] => {
    const entry = generic === "A2aHandler" || generic === "A2aClient" ? runtimeModule : protocolModule;
    return [f.import(generic, entry, true), "<(typeof ", def, ')["service"]>'];
  };
  return {
    f,
    target,
    typed: target === "ts",
    plan,
    newerDef,
    olderDef,
    newerHandler: typeOf("A2aHandler", newerDef),
    olderSide: typeOf("BridgedHandler", olderDef),
    newerClient: typeOf("A2aClient", newerDef),
    olderClient: [...typeOf("A2aClient", olderDef), " | ", ...typeOf("JsonRpcClient", olderDef)],
    loss: f.import("Loss", runtimeModule, true),
    olderVersion: older.protocolVersion,
    converter: f.import("a2aCompat", `./${MODULES.messages}.js`),
    jsonTable: jsonTable === undefined ? undefined : f.import(jsonTable, `./${MODULES.jsonrpc}.js`),
  };
}

/** The d.ts declarations of the operation table and the bridges (the dual-version handler follows). */
function printDeclarations(c: ModuleCtx): void {
  const { f } = c;
  f.print(
    f.export("declare const", "a2aOperationPairs"),
    ": readonly ",
    f.import("OperationPair", protocolModule, true),
    "[];",
  );
  f.print(...bridgeSig(c, "bridgeToOlder", ["handler", c.newerHandler], c.olderSide, ";"));
  f.print(
    f.export("declare const", "a2aOperations"),
    ": ",
    f.import("OperationCorrespondence", protocolModule, true),
    ";",
  );
  f.print(...bridgeSig(c, "clientForOlder", ["client", c.olderClient], c.newerClient, ";"));
  f.print(...clientForCardSig(c, ";"));
  emitDualVersion(f, c.target, c.newerDef, c.newerHandler);
  if (c.jsonTable) printPushPayloads(c, c.olderVersion);
}

/** `a2aOperationPairs` and `a2aOperations`: each operation's names in both versions. */
function printOperations(c: ModuleCtx, operations: readonly OperationPair[]): void {
  const { f, typed, plan } = c;
  f.print();
  f.print(f.jsDoc(`Each ${plan.older} operation and the ${plan.newer} operation it corresponds to.`));
  f.print(
    f.export("const", "a2aOperationPairs"),
    ...(typed ? [": readonly ", f.import("OperationPair", protocolModule, true), "[]"] : []),
    ` = ${printLiteral(operations)};`,
  );
  f.print();
  f.print(f.jsDoc(`Each operation's names in both versions and every binding: JSON-RPC methods, routes, gRPC paths.`));
  f.print(
    f.export("const", "a2aOperations"),
    ...(typed ? [": ", f.import("OperationCorrespondence", protocolModule, true)] : []),
    " = ",
    f.import("operationCorrespondence", protocolModule),
    "(\n  ",
    c.olderDef,
    ", ",
    c.newerDef,
    ", a2aOperationPairs,\n);",
  );
  f.print();
}

/** `bridgeToOlder` (serve older clients with a newer handler) and `clientForOlder` (the other way round). */
function printBridges(c: ModuleCtx): void {
  const { f, plan } = c;
  f.print(
    f.jsDoc(
      prose(
        `Serves ${plan.older} clients with a ${plan.newer} handler (a version bridge): the ${plan.older} ` +
          "definition, handler and JSON-RPC operations served in one pass, for a server's options or a " +
          "dual-version side.",
      ),
    ),
  );
  f.print(...bridgeSig(c, "bridgeToOlder", ["handler", c.newerHandler], c.olderSide, " {"));
  printCreate(c, "createBridgeHandler", "handler");
  f.print();
  f.print(
    f.jsDoc(
      prose(
        `A ${plan.newer} client over a ${plan.older} client: call an older agent with newer types. ` +
          "Operations the older version lacks fail with UnsupportedOperationError. " +
          "A JSON-RPC client's calls (its jsonrpc property) carry a2a.json in one pass.",
      ),
    ),
  );
  f.print(...bridgeSig(c, "clientForOlder", ["client", c.olderClient], c.newerClient, " {"));
  printCreate(c, "createClientBridge", "client");
  f.print();
  printClientForCard(c);
}

/** `export function name(param: T, onLoss?): result`: a bridge's signature (in a d.ts, `end` is ";"). */
function bridgeSig(c: ModuleCtx, name: string, param: [string, Printable[]], result: Printable[], end: string) {
  const head = c.f.export(c.target === "dts" ? "declare function" : "function", name);
  if (c.target === "js") return [head, `(${param[0]}, onLoss)${end}`];
  const onLoss: Printable[] = ["onLoss?: (operation: string, loss: ", c.loss, ") => void"];
  return params(head, [[`${param[0]}: `, ...param[1]], onLoss], result, end);
}

/** The signature of `clientForCard` (in a d.ts, `end` is ";"). */
function clientForCardSig(c: ModuleCtx, end: string): Printable[] {
  const { f } = c;
  const head = f.export(c.target === "dts" ? "declare function" : "function", "clientForCard");
  if (c.target === "js") return [head, `(card, options)${end}`];
  const options: Printable[] = ["options?: ", f.import("ClientForCardOptions", runtimeModule, true)];
  const result: Printable[] = [
    "{ client: ",
    ...c.newerClient,
    "; selected: ",
    f.import("CardInterface", runtimeModule, true),
    "; bridged: boolean }",
  ];
  return params(head, ["card: unknown", options], result, end);
}

/** `clientForCard`: a newer client for a card of either version, the older one through clientForOlder. */
function printClientForCard(c: ModuleCtx): void {
  const { f, plan } = c;
  f.print(
    f.jsDoc(
      prose(
        `A ${plan.newer} client for the agent card's first usable interface at ${plan.newer}, else at ` +
          `${plan.older} through clientForOlder (createClientForCardOrOlder). selected is the interface taken ` +
          `(its protocolVersion tells which), bridged is true for the ${plan.older} one. options.onLoss also ` +
          "hears what the bridge loses.",
      ),
    ),
  );
  f.print(...clientForCardSig(c, " {"));
  f.print("  return ", f.import("createClientForCardOrOlder", runtimeModule), "(");
  f.print("    ", c.newerDef, ",");
  f.print("    { older: ", c.olderDef, ", bridge: (client) => clientForOlder(client, options?.onLoss) },");
  f.print("    card,");
  f.print("    options,");
  f.print("  );");
  f.print("}");
  f.print();
}

/** The body of a bridge function: one call of the runtime's `create` with both definitions and the conversions. */
function printCreate(c: ModuleCtx, create: string, wrapped: "handler" | "client"): void {
  const { f } = c;
  const json: Printable[] = c.jsonTable ? [", json: ", c.jsonTable] : [];
  f.print("  return ", f.import(create, protocolModule), "({");
  f.print("    older: ", c.olderDef, ", newer: ", c.newerDef, `, ${wrapped}, converter: `, c.converter, ",");
  f.print("    operations: a2aOperationPairs", json, ", ...(onLoss ? { onLoss } : {}),");
  f.print("  });");
  f.print("}");
}

/** `dualVersionHttpHandler`: both versions at the same URLs from the newer handler, bridged by bridgeToOlder. */
function emitDualVersion(f: GeneratedFile, target: Target, newerDef: Printable, handler: Printable[]) {
  const shared = f.import("DualVersionSharedOptions", protocolModule, true);
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
      prose(
        "One HTTP handler serving both versions at the same URLs (createDualVersionHttpHandler): the handler, " +
          "and bridgeToOlder of it for the older version's calls. options.onLoss also hears what the bridge " +
          "loses.",
      ),
    ),
  );
  const head = f.export("function", "dualVersionHttpHandler");
  f.print(
    ...(target === "ts"
      ? params(
          head,
          [
            ["handler: ", ...handler],
            ["options?: ", shared],
          ],
          core,
          " {",
        )
      : [head, "(handler, options) {"]),
  );
  f.print("  return ", f.import("createDualVersionHttpHandler", protocolModule), "({");
  f.print("    ...options,");
  f.print("    newer: { definition: ", newerDef, ", handler },");
  f.print("    older: bridgeToOlder(handler, options?.onLoss),");
  f.print("  });");
  f.print("}");
}

/**
 * `olderPushPayloads`: createTaskHandler's push bodies for configs that older calls made through the bridge,
 * by protocol version: the task in the older JSON-RPC form (an older push carries the Task).
 */
function printPushPayloads(c: ModuleCtx, version: string): void {
  const { f, plan } = c;
  const payloads = f.import("PushPayload", taskModule, true);
  const record: Printable[] = ["Readonly<Record<string, ", payloads, ">>"];
  f.print();
  f.print(
    f.jsDoc(
      prose(
        `The push bodies for configs made by ${plan.older} calls through bridgeToOlder, by protocol version: ` +
          `the task in its ${plan.older} JSON-RPC (a2a.json) form. Give them as createTaskHandler's ` +
          "push.payload.",
      ),
    ),
  );
  if (c.target === "dts") {
    f.print(f.export("declare const", "olderPushPayloads"), ": ", record, ";");
    return;
  }
  const toOlder = f.import("toOlderJson", `./${MODULES.jsonrpc}.js`);
  f.print(f.export("const", "olderPushPayloads"), c.typed ? [": ", record] : [], " = {");
  f.print(`  ${JSON.stringify(version)}: (_event, task) => `, toOlder, "(task).json,");
  f.print("};");
}
