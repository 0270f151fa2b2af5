/**
 * Typed stubs for one service, as thin facades over the runtime
 * ("@protoc-gen-a2a/runtime"), in the requested target (ts, js or dts):
 *
 *   <base>_errors   the error catalog of the version, and the standard JSON-RPC errors
 *   <base>_a2a      the service definition (descriptor + tables), handler and client types,
 *                   and one HTTP handler serving the card, JSON-RPC and HTTP+JSON
 *   <base>_jsonrpc  JSON-RPC client and server handler
 *   <base>_rest     HTTP+JSON client and server handler
 *   <base>_grpc     gRPC client and connect router registration
 *   <base>_jsonrpc_codec  for a version with a JSON-RPC dialect: its a2a.json codec
 *                   (jsonrpc-codec-module.ts), which the definition carries
 *
 * Each declaration is written by the printer of the target (target-printer.ts): `ts` has types,
 * `js` has none, `dts` has declarations only. The message types come from protoc-gen-es
 * (`<base>_pb`), which must run next to this plugin.
 */
import type { GeneratedFile, ImportSymbol, Printable } from "@bufbuild/protoplugin";
import type { ResolvedApi } from "../../model/resolve-api.js";
import { inputRules } from "./input-rules.js";
import { printLiteral, printMembers } from "../print/literal.js";
import { definitionName, lowerFirstWord } from "../print/names.js";
import type { ModuleFiles } from "../../host/output-files.js";
import { prose, widthOf } from "../print/code-layout.js";
import { type Param, type TargetPrinter, targetPrinter } from "../print/target-printer.js";
import { protocolModule, runtimeModule } from "../print/runtime-entries.js";
import { emitJsonRpcCodec } from "../conversions/jsonrpc-codec-module.js";
import type { DialectIr } from "../../compat/dialect-ir.js";

interface Ctx {
  readonly f: GeneratedFile;
  /** The printer of the module's target. */
  readonly out: TargetPrinter;
  readonly name: string;
  /** The exported name of the service's definition (names.ts). */
  readonly definition: string;
  /** A name of the runtime's main entry (runtime-entries.ts). */
  readonly rt: (symbol: string, typeOnly?: boolean) => ImportSymbol;
  /** A name of the runtime's /protocol entry. */
  readonly proto: (symbol: string, typeOnly?: boolean) => ImportSymbol;
  readonly local: (symbol: string, module: string, typeOnly?: boolean) => ImportSymbol;
}

const data = (v: unknown) => printLiteral(v);

/** A runtime options type of the service (`Name<typeof Service>`): a server's options but the definition. */
const optionsOf = (c: Ctx, type: ImportSymbol): Printable[] => [type, "<typeof ", c.local(c.name, "pb", true), ">"];

export function emitStubs(
  files: ModuleFiles,
  base: string,
  model: ResolvedApi,
  dialectIr: DialectIr | undefined,
): void {
  const out = targetPrinter(files.target);
  const open = (suffix: string, what: string): Ctx => {
    const f = files.open(`${base}_${suffix}`, model.protoFile, what);
    return {
      f,
      out,
      name: model.service.name,
      definition: definitionName(model.service.name, model.protocolVersion),
      rt: (symbol, typeOnly = false) => f.import(symbol, runtimeModule, typeOnly),
      proto: (symbol, typeOnly = false) => f.import(symbol, protocolModule, typeOnly),
      local: (symbol, module, typeOnly = false) => f.import(symbol, `./${base}_${module}.js`, typeOnly),
    };
  };
  errorsModule(open("errors", `Errors of ${model.service.fullName}, protocol ${model.protocolVersion}.`), model);
  definitionModule(
    open(
      "a2a",
      `${model.service.fullName} at protocol ${model.protocolVersion}: definition, handler and client types.`,
    ),
    model,
  );
  jsonrpcModule(open("jsonrpc", `JSON-RPC client and server for ${model.service.fullName}.`));
  restModule(open("rest", `HTTP+JSON client and server for ${model.service.fullName}.`));
  grpcModule(open("grpc", `gRPC client and server for ${model.service.fullName}.`));
  if (dialectIr) {
    emitJsonRpcCodec(files, base, model.protoFile, {
      dialect: dialectIr,
      name: codecName(model),
      what: `The a2a.json codec of ${model.service.fullName}'s JSON-RPC binding, protocol ${model.protocolVersion}.`,
    });
  }
}

/** The exported name of a version's a2a.json codec. */
const codecName = (m: ResolvedApi) => `${definitionName(m.service.name, m.protocolVersion)}JsonRpcCodec`;

/** Prints a function that forwards to the runtime: `return BODY;`, typed in ts, declared in dts, plain in js. */
function forward(c: Ctx, doc: string, name: string, params: Param[], returns: Printable[], body: Printable[]): void {
  c.f.print(c.f.jsDoc(prose(doc)));
  c.out.function(c.f, { name, params, returns, body: [["  return ", ...body, ";"]] });
  c.f.print();
}

function errorsModule(c: Ctx, m: ResolvedApi): void {
  const entry = c.proto("ErrorCatalogEntry", true);
  const standard = c.proto("StandardErrorEntry", true);
  c.f.print(
    c.f.jsDoc(`A2A errors of this version: JSON-RPC code, gRPC status, HTTP status, ErrorInfo reason and domain.`),
  );
  const errors = { name: `${c.name}Errors`, type: ["readonly ", entry, "[]"], value: data(m.errors), asConst: true };
  c.out.constant(c.f, errors);
  c.f.print();
  c.f.print(c.f.jsDoc(`The standard JSON-RPC errors.`));
  const standardErrors = data(m.standardErrors);
  c.out.constant(c.f, {
    name: `${c.name}StandardErrors`,
    type: ["readonly ", standard, "[]"],
    value: standardErrors,
    asConst: true,
  });
  c.out.types(() => {
    c.f.print();
    const names = m.errors.map((e) => JSON.stringify(e.name));
    const head = c.f.export("type", `${c.name}ErrorName`);
    const oneLine = ` = ${names.join(" | ") || "never"};`;
    // One member a line when the union does not fit on one, as a formatter prints it.
    if (widthOf([head, oneLine]) <= 120) c.f.print(head, oneLine);
    else c.f.print(head, " =\n", names.map((n) => `  | ${n}`).join("\n"), ";");
  });
}

function definitionModule(c: Ctx, m: ResolvedApi): void {
  const service = c.out.importValue(c.f, m.service.name, `./${m.protoFile.replace(/\.proto$/, "")}_pb.js`);
  const defType = c.rt("A2aServiceDefinition", true);
  const tables = {
    protocolVersion: m.protocolVersion,
    release: m.release,
    jsonrpcMethods: Object.fromEntries(m.operations.map((o) => [o.name, o.jsonrpcMethod])),
    headers: m.headers,
    contentTypes: { jsonrpc: m.contentTypes.jsonrpc, rest: m.contentTypes.rest },
    tenantField: m.tenantField,
    jsonrpcRequestContentTypes: m.jsonrpcRequestContentTypes,
    jsonrpcIds: m.jsonrpcIds,
    restRequestContentTypes: m.restRequestContentTypes,
    streamStart: m.streamStart,
    taskTurns: m.taskTurns,
    requiredJson: m.requiredInJson ? requiredJson(m) : null,
    inputRules: inputRules(m),
    restWrappedBodies: restWrappedBodies(m),
    capabilities: m.capabilities,
    dualVersion: m.dualVersion,
  };
  const members = printMembers(tables, "  ");
  c.f.print(
    c.f.jsDoc(
      `${m.service.fullName} at protocol version ${m.protocolVersion} ` +
        `(release ${m.release}): its descriptor and tables.`,
    ),
  );
  c.out.constant(c.f, {
    name: c.definition,
    type: [defType, "<typeof ", service, ">"],
    value: [
      c.proto("defineA2aService"),
      "(",
      service,
      ", {\n",
      members,
      `\n  routes: `,
      c.local(`${c.name}Routes`, "routes"),
      `,\n  aliases: `,
      c.local(`${c.name}RouteAliases`, "routes"),
      `,\n  errors: `,
      c.local(`${c.name}Errors`, "errors"),
      `,\n  standardErrors: `,
      c.local(`${c.name}StandardErrors`, "errors"),
      ...(m.jsonrpcDialect ? [`,\n  jsonrpcCodec: `, c.local(codecName(m), "jsonrpc_codec")] : []),
      `,\n})`,
    ],
  });
  c.f.print();
  c.out.types(() => {
    c.f.print(c.f.jsDoc(`A server implementation: one method per RPC; streams are async iterables.`));
    c.f.print(c.f.export("type", `${c.name}Handler`), " = ", c.rt("A2aHandler", true), "<typeof ", service, ">;");
    c.f.print();
    c.f.print(c.f.jsDoc(`A typed client of any binding.`));
    c.f.print(c.f.export("type", `${c.name}Client`), " = ", c.rt("A2aClient", true), "<typeof ", service, ">;");
    c.f.print();
  });
  forward(
    c,
    "A client for the first interface of the agent card that this client can use " +
      "(binding and protocol version), with the interface's tenant.",
    `create${c.name}ClientForCard`,
    [
      ["card", ["unknown"]],
      ["options?", [c.rt("ClientForCardOptions", true)]],
    ],
    ["{ client: ", c.name, "Client; selected: ", c.rt("CardInterface", true), " }"],
    [c.rt("createClientForCard"), "(", c.definition, ", card, options)"],
  );
  forward(
    c,
    "One HTTP handler for an agent: the agent card, JSON-RPC and HTTP+JSON. " +
      "Wrap it with nodeHttpListener or fetchHandler.",
    `create${c.name}HttpHandler`,
    [["options", optionsOf(c, c.rt("HttpHandlerOptions", true))]],
    [c.rt("CoreHandler", true)],
    [c.proto("createA2aHttpHandler"), "({ ...options, definition: ", c.definition, " })"],
  );
}

function jsonrpcModule(c: Ctx): void {
  const def = c.local(c.definition, "a2a");
  const client = c.local(`${c.name}Client`, "a2a", true);
  forward(
    c,
    `A JSON-RPC client for the interface at options.url; its calls on JSON are its jsonrpc property.`,
    `create${c.name}JsonRpcClient`,
    [["options", [c.rt("A2aClientOptions", true)]]],
    // The same calls on JSON, for the version bridge (clientForOlder): a typed property, not a hidden one.
    [client, " & { readonly jsonrpc: ", c.proto("JsonRpcCalls", true), " }"],
    [c.proto("createJsonRpcClient"), "(", def, ", options)"],
  );
  forward(
    c,
    `A JSON-RPC endpoint (POST) serving the handler, and jsonrpcOperations on JSON (a version bridge's).`,
    `create${c.name}JsonRpcHandler`,
    [["options", optionsOf(c, c.proto("JsonRpcHandlerOptions", true))]],
    [c.rt("CoreHandler", true)],
    [c.proto("createJsonRpcHandler"), "({ ...options, definition: ", def, " })"],
  );
}

function restModule(c: Ctx): void {
  const def = c.local(c.definition, "a2a");
  const client = c.local(`${c.name}Client`, "a2a", true);
  forward(
    c,
    `An HTTP+JSON client; options.url is the interface URL the routes are appended to.`,
    `create${c.name}RestClient`,
    [["options", [c.rt("A2aClientOptions", true)]]],
    [client],
    [c.proto("createRestClient"), "(", def, ", options)"],
  );
  forward(
    c,
    `The HTTP+JSON routes, under basePath, serving the handler.`,
    `create${c.name}RestHandler`,
    [
      ["options", optionsOf(c, c.proto("RestHandlerOptions", true))],
      ["basePath", ["string"]],
    ],
    [c.rt("CoreHandler", true)],
    [c.proto("createRestHandler"), "({ ...options, definition: ", def, " }, basePath)"],
  );
}

function grpcModule(c: Ctx): void {
  const def = c.local(c.definition, "a2a");
  const client = c.local(`${c.name}Client`, "a2a", true);
  forward(
    c,
    `A gRPC client over a connect transport (createGrpcTransport from @connectrpc/connect-node).`,
    `create${c.name}GrpcClient`,
    [
      ["transport", [c.f.import("Transport", "@connectrpc/connect", true)]],
      ["options", [c.rt("GrpcClientOptions", true)]],
    ],
    [client],
    [c.proto("createGrpcClient"), "(", def, ", transport, options)"],
  );
  forward(
    c,
    "Registers the service on a connect router, e.g. " +
      `connectNodeAdapter({ routes: ${lowerFirstWord(c.name)}GrpcRoutes({ handler }), grpc: true }).`,
    `${lowerFirstWord(c.name)}GrpcRoutes`,
    [["options", optionsOf(c, c.proto("GrpcRoutesOptions", true))]],
    [c.proto("GrpcRoutes", true)],
    [c.proto("grpcRoutes"), "({ ...options, definition: ", def, " })"],
  );
}

/** RPC name → the key its HTTP+JSON body may be wrapped in (override restWrappedBody), or null if none is. */
function restWrappedBodies(m: ResolvedApi): Record<string, string> | null {
  const entries = m.operations.flatMap((o) => (o.restWrappedBody ? [[o.name, o.restWrappedBody] as const] : []));
  return entries.length > 0 ? Object.fromEntries(entries) : null;
}

/** Per message of the package, its REQUIRED fields that toJson can leave out: scalars, enums, lists and maps. */
function requiredJson(m: ResolvedApi): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const msg of m.messages.values()) {
    if (!msg.fullName.startsWith(m.package + ".")) continue;
    const names = msg.fields
      .filter((f) => f.required && !f.oneof && (f.repeated || f.map || f.kind !== "message"))
      .map((f) => f.name);
    if (names.length > 0) out[msg.fullName] = names;
  }
  return out;
}
