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
import type { GeneratedFile, ImportSymbol, Printable } from "@bufbuild/protoplugin";
import type { OperationPair } from "../../compat/version-links.js";
import type { CompatPlan } from "../../compat/compat-plan.js";
import { prose } from "../print/code-layout.js";
import { type Param, type TargetPrinter, targetPrinter } from "../print/target-printer.js";
import { printFormatted } from "../print/literal.js";
import { emitProtoConversions } from "./compat-proto-module.js";
import { namespacedShapes } from "../print/shape-imports.js";
import type { ConversionIr } from "../../compat/conversion-ir.js";
import type { ModuleFiles } from "../../host/output-files.js";
import {
  compatJsonNamespace,
  protocolModule,
  runtimeModule,
  taskModule,
  taskRuntimePackage,
} from "../print/runtime-entries.js";
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
  /** The printer of the module's target. */
  readonly out: TargetPrinter;
  readonly plan: CompatPlan;
  readonly newerDef: Printable;
  readonly olderDef: Printable;
  readonly newerHandler: Printable[];
  readonly olderSide: Printable[];
  readonly newerClient: Printable[];
  readonly olderClient: Printable[];
  readonly loss: Printable;
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
  const out = targetPrinter(files.target);
  const open = (name: string, what: string, sides: readonly CompatSide[] = [], helpers = false) =>
    files.openWithNamespaces(
      name,
      newer.file,
      [
        // The messages' types (so none in JavaScript), and the helpers of the a2a.json conversions.
        ...sides.map((s) => ({ alias: namespaceOf(s), from: pbModule(s.file), typeOnly: true })),
        ...(helpers ? [compatJsonNamespace] : []),
      ],
      `${what} between ${plan.older} (${older.file}) and ${plan.newer} (${newer.file});`,
      "see a2a_compat.md for the field-by-field table.",
    );
  const messages = open(MODULES.messages, "Conversions of the proto messages", [newer, older]);
  emitMessages(messages, out, { newer, older, ir });
  const fj = json && open(MODULES.jsonrpc, "JSON-RPC (a2a.json) conversions", [newer], true);
  const table =
    json && fj
      ? emitCompatJson(fj, out, {
          ir,
          ...json,
          shape: namespacedShapes(new Map([[newer.file, namespaceOf(newer)]])),
          olderA2a: a2aModule(older.file),
          olderDefinition: older.definition,
          converter: fj.import("a2aCompat", `./${MODULES.messages}.js`),
        })
      : undefined;
  const f = open(MODULES.api, "The version bridges");
  const c = moduleCtx(f, out, plan, newer, older, table);
  printReexports(c, json !== undefined);
  printOperations(c, operations);
  printBridges(c);
  printDualVersion(c);
  // The task runtime's push payloads take its own Task: a fork's newer package has no use for them.
  if (json && plan.newer === taskRuntimePackage) printPushPayloads(c, older.protocolVersion);
}

/** The messages module: every pair's two functions and `a2aCompat`, or its declaration. */
function emitMessages(
  f: GeneratedFile,
  out: TargetPrinter,
  { newer, older, ir }: { newer: CompatSide; older: CompatSide; ir: ConversionIr },
): void {
  out.module({
    declarations: () =>
      f.print(f.export("declare const", "a2aCompat"), ": ", f.import("Converter", runtimeModule, true), ";"),
    values(typed) {
      const shape = namespacedShapes(new Map([newer, older].map((s) => [s.file, namespaceOf(s)])));
      emitProtoConversions(f, typed, ir, shape, [
        f.import(fileDescName(newer.file), pbModule(newer.file)),
        f.import(fileDescName(older.file), pbModule(older.file)),
      ]);
    },
  });
}

/** The name a version's messages module is imported under: `v10` for protocol 1.0. */
const namespaceOf = (s: CompatSide) => `v${s.protocolVersion.replace(/\D/g, "")}`;

/** The protobuf-es module of a proto file, from the output root. */
const pbModule = (protoFile: string) => `./${protoFile.replace(/\.proto$/, "")}_pb.js`;

/** What the API module passes on from the other two, so that `a2a_compat` alone serves every use. */
function printReexports(c: ModuleCtx, json: boolean): void {
  const { f } = c;
  f.print("// The conversions themselves, from their own modules.");
  printExportList(c, [c.converter]);
  if (json) {
    const from = `./${MODULES.jsonrpc}.js`;
    printExportList(
      c,
      ["a2aCompatJson", "fromOlderJson", "toOlderJson"].map((n) => f.import(n, from)),
    );
    c.out.types(() => f.print("export type { ", f.import("OlderJsonMessage", from, true), " };"));
  }
}

/** `export { a, b };`, or under CommonJS (js_import_style=legacy_commonjs) `exports.a = a;` for each. */
function printExportList(c: ModuleCtx, values: readonly ImportSymbol[]): void {
  const { f } = c;
  if (f.jsImportStyle === "legacy_commonjs") {
    for (const v of values) f.print("exports.", v.name, " = ", v, ";");
    return;
  }
  f.print(
    "export { ",
    values.flatMap((v, i) => (i === 0 ? [v] : [", ", v])),
    " };",
  );
}

/** The module of a version's definition, relative to a2a_compat. */
const a2aModule = (file: string) => `./${file.replace(/\.proto$/, "")}_a2a.js`;

function moduleCtx(
  f: GeneratedFile,
  out: TargetPrinter,
  plan: CompatPlan,
  newer: CompatSide,
  older: CompatSide,
  jsonTable: string | undefined,
): ModuleCtx {
  // Each version's definition has its own name (names.ts: definitionName); the handler and
  // client types are derived from it, so the two versions' same-named types need no aliases.
  const newerDef = out.importValue(f, newer.definition, a2aModule(newer.file));
  const olderDef = out.importValue(f, older.definition, a2aModule(older.file));
  const typeOf = (
    generic: "A2aHandler" | "A2aClient" | "BridgedHandler" | "JsonRpcClient",
    def: Printable,
  ): Printable[] => {
    const entry = generic === "A2aHandler" || generic === "A2aClient" ? runtimeModule : protocolModule;
    return [f.import(generic, entry, true), "<(typeof ", def, ')["service"]>'];
  };
  return {
    f,
    out,
    plan,
    newerDef,
    olderDef,
    newerHandler: typeOf("A2aHandler", newerDef),
    olderSide: typeOf("BridgedHandler", olderDef),
    newerClient: typeOf("A2aClient", newerDef),
    olderClient: [...typeOf("A2aClient", olderDef), " | ", ...typeOf("JsonRpcClient", olderDef)],
    loss: f.import("Loss", runtimeModule, true),
    converter: f.import("a2aCompat", `./${MODULES.messages}.js`),
    jsonTable: jsonTable === undefined ? undefined : f.import(jsonTable, `./${MODULES.jsonrpc}.js`),
  };
}

/** `a2aOperationPairs` and `a2aOperations`: each operation's names in both versions. */
function printOperations(c: ModuleCtx, operations: readonly OperationPair[]): void {
  const { f, plan } = c;
  f.print();
  f.print(f.jsDoc(`Each ${plan.older} operation and the ${plan.newer} operation it corresponds to.`));
  c.out.constant(f, {
    name: "a2aOperationPairs",
    type: ["readonly ", f.import("OperationPair", protocolModule, true), "[]"],
    value: printFormatted(operations),
  });
  f.print();
  f.print(f.jsDoc(`Each operation's names in both versions and every binding: JSON-RPC methods, routes, gRPC paths.`));
  c.out.constant(f, {
    name: "a2aOperations",
    type: f.import("OperationCorrespondence", protocolModule, true),
    value: [
      f.import("operationCorrespondence", protocolModule),
      "(\n  ",
      c.olderDef,
      ",\n  ",
      c.newerDef,
      ",\n  a2aOperationPairs,\n)",
    ],
  });
  f.print();
}

/** `bridgeToOlder` (serve older clients with a newer handler) and `clientForOlder` (the other way round). */
function printBridges(c: ModuleCtx): void {
  const { f, plan } = c;
  const onLoss: Param = ["onLoss?", ["(operation: string, loss: ", c.loss, ") => void"]];
  f.print(
    f.jsDoc(
      prose(
        `Serves ${plan.older} clients with a handler of ${plan.newer} (a version bridge): the ${plan.older} ` +
          "definition, handler and JSON-RPC operations served in one pass, for a server's options or a " +
          "dual-version side.",
      ),
    ),
  );
  c.out.function(f, {
    name: "bridgeToOlder",
    params: [["handler", c.newerHandler], onLoss],
    returns: c.olderSide,
    body: createBody(c, "createBridgeHandler", "handler"),
  });
  f.print();
  f.print(
    f.jsDoc(
      prose(
        `A client of ${plan.newer} over a client of ${plan.older}: call an older agent with newer types. ` +
          "Operations the older version lacks fail with UnsupportedOperationError. " +
          "A JSON-RPC client's calls (its jsonrpc property) carry a2a.json in one pass.",
      ),
    ),
  );
  c.out.function(f, {
    name: "clientForOlder",
    params: [["client", c.olderClient], onLoss],
    returns: c.newerClient,
    body: createBody(c, "createClientBridge", "client"),
  });
  f.print();
  printClientForCard(c);
}

/** `clientForCard`: a newer client for a card of either version, the older one through clientForOlder. */
function printClientForCard(c: ModuleCtx): void {
  const { f, plan } = c;
  f.print(
    f.jsDoc(
      prose(
        `A client of ${plan.newer} for the agent card's first usable interface at ${plan.newer}, else at ` +
          `${plan.older} through clientForOlder (createClientForCardOrOlder). selected is the interface taken ` +
          `(its protocolVersion tells which), bridged is true for the ${plan.older} one. options.onLoss also ` +
          "hears what the bridge loses.",
      ),
    ),
  );
  const selected = f.import("CardInterface", runtimeModule, true);
  c.out.function(f, {
    name: "clientForCard",
    params: [
      ["card", "unknown"],
      ["options?", f.import("ClientForCardOptions", runtimeModule, true)],
    ],
    returns: ["{ client: ", ...c.newerClient, "; selected: ", selected, "; bridged: boolean }"],
    body: [
      ["  return ", f.import("createClientForCardOrOlder", runtimeModule), "("],
      ["    ", c.newerDef, ","],
      ["    { older: ", c.olderDef, ", bridge: (client) => clientForOlder(client, options?.onLoss) },"],
      "    card,",
      "    options,",
      "  );",
    ],
  });
  f.print();
}

/** The body of a bridge function: one call of the runtime's `create` with both definitions and the conversions. */
function createBody(c: ModuleCtx, create: string, wrapped: "handler" | "client"): Printable[] {
  return [
    ["  return ", c.f.import(create, protocolModule), "({"],
    ["    older: ", c.olderDef, ","],
    ["    newer: ", c.newerDef, ","],
    `    ${wrapped},`,
    ["    converter: ", c.converter, ","],
    "    operations: a2aOperationPairs,",
    ...(c.jsonTable ? [["    json: ", c.jsonTable, ","]] : []),
    "    ...(onLoss ? { onLoss } : {}),",
    "  });",
  ];
}

/** `dualVersionHttpHandler`: both versions at the same URLs from the newer handler, bridged by bridgeToOlder. */
function printDualVersion(c: ModuleCtx): void {
  const { f } = c;
  f.print(
    f.jsDoc(
      prose(
        "One HTTP handler serving both versions at the same URLs (createDualVersionHttpHandler): the handler, " +
          "and bridgeToOlder of it for the older version's calls. options.onLoss also hears what the bridge " +
          "loses.",
      ),
    ),
  );
  c.out.function(f, {
    name: "dualVersionHttpHandler",
    params: [
      ["handler", c.newerHandler],
      ["options?", f.import("DualVersionSharedOptions", protocolModule, true)],
    ],
    returns: f.import("CoreHandler", runtimeModule, true),
    body: [
      ["  return ", f.import("createDualVersionHttpHandler", protocolModule), "({"],
      "    ...options,",
      ["    newer: { definition: ", c.newerDef, ", handler },"],
      "    older: bridgeToOlder(handler, options?.onLoss),",
      "  });",
    ],
  });
}

/**
 * `olderPushPayloads`: createTaskHandler's push bodies for configs that older calls made through the bridge,
 * by protocol version: the task in the older JSON-RPC form (an older push carries the Task).
 */
function printPushPayloads(c: ModuleCtx, version: string): void {
  const { f, plan } = c;
  const payloads = f.import("PushPayload", taskModule, true);
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
  const toOlder = f.import("toOlderJson", `./${MODULES.jsonrpc}.js`);
  c.out.constant(f, {
    name: "olderPushPayloads",
    type: ["Readonly<Record<string, ", payloads, ">>"],
    value: ["{\n", `  ${JSON.stringify(version)}: (_event, task) => `, toOlder, "(task).json,\n}"],
  });
}
