/**
 * ResolvedApi → the OpenRPC 1.3 document of a version's JSON-RPC binding, as a data tree.
 *
 * Methods are the operations by their JSON-RPC names (api.jsonrpcMethodNames, operations.*.jsonrpcMethod),
 * params by name. Schemas are the version's JSON-RPC form: ProtoJSON (protojson-schemas.ts) when the
 * binding speaks it, else the dialect's (openrpc-dialect-schemas.ts, v0.3 a2a.json), whose params are
 * the operation's JSON-RPC params (operations.*.jsonrpcParams) with the schemas of the request's dialect
 * form; a param the request message has no field for is any JSON (the codec reads and reports it as lost).
 * A server-streaming method's result is one event of its SSE stream (`x-a2a-streaming`). Errors are the
 * catalog and the standard errors, as components every method refers to. Each method names the override
 * entries that target its operation (`x-a2a-overrides`); the document lists every entry applied, with its
 * source and decision.
 */
import type { ResolvedApi, ResolvedOperation } from "../../model/resolve-api.js";
import type { UpstreamSource } from "../docs/sources.js";
import { compact, type Tree, type TreeObject } from "../print/doc-tree.js";
import { ProtoJsonSchemas } from "../schemas/protojson-schemas.js";
import { DialectSchemas } from "./openrpc-dialect-schemas.js";
import type { DialectIr } from "../../compat/dialect-ir.js";
import { overridesList, pinnedProto, sourceInfo } from "../docs/doc-info.js";

const refPrefix = "#/components/schemas/";

interface Param {
  readonly name: string;
  readonly schema: Tree;
  readonly required: boolean;
}

interface Schemas {
  ref(fullName: string): TreeObject;
  components(): TreeObject;
  params(op: ResolvedOperation): Param[];
}

function protoJsonSchemas(m: ResolvedApi): Schemas {
  const s = new ProtoJsonSchemas(m, refPrefix);
  return {
    ref: (n) => s.ref(n),
    components: () => s.components(),
    params: (op) =>
      m.messages.get(op.input)!.fields.map((f) => ({
        name: f.jsonName,
        schema: s.field(f),
        required: f.required && f.oneof === undefined,
      })),
  };
}

function dialectSchemas(m: ResolvedApi, d: DialectIr): Schemas {
  const s = new DialectSchemas(m, d, refPrefix);
  return {
    ref: (n) => s.ref(n),
    components: () => s.components(),
    params: (op) => {
      const known = new Map(s.params(op.input).map((p) => [p.name, p]));
      return op.jsonrpcParams.map(
        (name) =>
          known.get(name) ?? {
            name,
            schema: { description: "A param the request message has no field for: read and reported as lost." },
            required: false,
          },
      );
    },
  };
}

function errors(m: ResolvedApi): TreeObject {
  const catalog = m.errors.map((e): [string, Tree] => [
    e.name,
    compact({
      code: e.jsonrpcCode,
      message: e.message,
      data:
        e.reason === null
          ? undefined
          : [
              {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                reason: e.reason,
                domain: e.domain ?? "a2a-protocol.org",
              },
            ],
    }),
  ]);
  const standard = m.standardErrors.map((e): [string, Tree] => [e.name, { code: e.code, message: e.message }]);
  return Object.fromEntries([...catalog, ...standard]);
}

function method(m: ResolvedApi, schemas: Schemas, op: ResolvedOperation, errorNames: readonly string[]): TreeObject {
  const own = m.overrides
    .filter((o) => o.target.startsWith(`operations.${op.name}.`))
    .map((o) => ({ id: o.id, target: o.target }));
  const result = schemas.ref(op.output);
  const outName = op.output.slice(op.output.lastIndexOf(".") + 1);
  const streamNote = op.serverStreaming
    ? ` The answer is a stream (${m.contentTypes.jsonrpc.stream}): ` +
      `each event a JSON-RPC response whose result is one ${outName}.`
    : "";
  return compact({
    name: op.jsonrpcMethod,
    summary: op.name,
    description: (op.description ?? `The ${op.name} RPC.`) + streamNote,
    tags: [{ name: op.canonicalName }],
    paramStructure: "by-name",
    params: schemas.params(op).map((p) => ({ name: p.name, required: p.required, schema: p.schema })),
    result: { name: outName, schema: result },
    errors: errorNames.map((n) => ({ $ref: `#/components/errors/${n}` })),
    "x-a2a-streaming": op.serverStreaming ? true : undefined,
    "x-a2a-grpc-path": op.grpcPath,
    "x-a2a-overrides": own.length > 0 ? own : undefined,
  });
}

/** The document of a version; `dialect`: the IR of its JSON-RPC dialect, when its binding speaks one. */
export function openRpcDocument(
  m: ResolvedApi,
  upstream: readonly UpstreamSource[],
  dialect: DialectIr | undefined,
): TreeObject {
  const schemas = dialect ? dialectSchemas(m, dialect) : protoJsonSchemas(m);
  const errs = errors(m);
  const names = Object.keys(errs);
  const methods = m.operations.map((op) => method(m, schemas, op, names));
  const pin = pinnedProto(m, upstream);
  const form = dialect ? "the version's JSON-RPC dialect (a2a.json)" : "ProtoJSON";
  const from = pin ? ` at ${pin.gitTag} (commit ${pin.commit})` : "";
  return {
    openrpc: "1.3.2",
    info: {
      title: `${m.service.fullName} JSON-RPC (A2A ${m.release})`,
      version: m.release,
      description:
        `The JSON-RPC 2.0 binding of A2A ${m.release}, generated by protoc-gen-a2a from \`${m.protoFile}\`${from}. ` +
        `Params and results are ${form}.`,
      "x-a2a-source": sourceInfo(m, pin),
    },
    methods,
    components: { schemas: schemas.components(), errors: errs },
    "x-a2a-overrides": overridesList(m),
  };
}
