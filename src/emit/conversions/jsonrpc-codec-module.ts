/**
 * Writes `<base>_jsonrpc_codec.{ts,js,d.ts}` for a version whose overrides
 * have a JSON-RPC dialect (api.jsonrpcDialect, v0.3's a2a.json): an encoder
 * (ProtoJSON → a2a.json) and a decoder (back) per message of the version's
 * file, by the rules of jsonrpc-codec-encode.ts and jsonrpc-codec-decode.ts,
 * and the codec the definition carries (`jsonrpcCodec`): the coders by type
 * name, and the names the JSON request checks read. A d.ts declares the codec
 * only.
 */
import type { DescEnum } from "@bufbuild/protobuf";
import type { GeneratedFile } from "@bufbuild/protoplugin";
import { printFormatted } from "../print/literal.js";
import { prose } from "../print/code-layout.js";
import { wrapLine } from "../print/wrap-line.js";
import type { ModuleFiles } from "../../host/output-files.js";
import { compatJsonHelper, compatJsonNamespace, protocolModule } from "../print/runtime-entries.js";
import { targetPrinter } from "../print/target-printer.js";
import { codecCtx, type CodecCtx } from "./jsonrpc-codec-rules.js";
import type { DialectIr } from "../../compat/dialect-ir.js";
import { encoderName, enumOfField, printEncoder, printEnumEncoder, printPartWriters } from "./jsonrpc-codec-encode.js";
import { decoderName, printDecoder, printEnumDecoder, printFileReader } from "./jsonrpc-codec-decode.js";

export interface JsonRpcCodecInputs {
  /** The dialect of the file's messages (src/compat/dialect-ir.ts). */
  readonly dialect: DialectIr;
  /** The exported name of the codec, e.g. A2AServiceV0_3JsonRpcCodec. */
  readonly name: string;
  /** Says what the codec is for in the file's header line. */
  readonly what: string;
}

/** The module the definition imports the codec from, relative to the stubs: `./<base>_jsonrpc_codec.js`. */
export const codecModule = (base: string) => `./${base.split("/").pop()}_jsonrpc_codec.js`;

export function emitJsonRpcCodec(
  files: ModuleFiles,
  base: string,
  protoFile: string,
  inputs: JsonRpcCodecInputs,
): void {
  const name = `${base}_jsonrpc_codec`;
  targetPrinter(files.target).module({
    declarations() {
      const f = files.open(name, protoFile, inputs.what);
      f.print(f.jsDoc(prose(codecDoc)));
      f.print(f.export("declare const", inputs.name), ": ", f.import("JsonRpcCodec", protocolModule, true), ";");
    },
    values(typed) {
      const f = files.openWithNamespaces(name, protoFile, [compatJsonNamespace], inputs.what);
      printCoders(codecCtx(f, typed, inputs.dialect), inputs.name);
    },
  });
}

/** Every coder of the file's messages and enums, and the codec over them. */
function printCoders(c: CodecCtx, name: string): void {
  const messages = [...c.rules.values()].map((r) => r.m);
  for (const r of c.rules.values()) {
    printEncoder(c, r);
    printDecoder(c, r);
  }
  for (const e of enumsUsed(c)) {
    printEnumEncoder(c, e);
    printEnumDecoder(c, e);
  }
  const part = [...c.rules.values()].find((r) => r.rule.kind === "part");
  if (part) {
    const inList = messages.some((m) => m.fields.some((x) => x.fieldKind === "list" && x.message === part.m));
    printPartWriters(c, inList);
    printFileReader(c);
  }
  printNullResults(c);
  printCodec(c, c.f, name, c.f.import("JsonRpcCodec", protocolModule, true));
}

const codecDoc =
  "The a2a.json codec of the JSON-RPC binding: ProtoJSON of the version's messages ↔ a2a.json, " +
  "what either side has no form for reported; and the names the JSON request checks read.";

/** The enums of fields written one by one, each once, in the order first met. */
function enumsUsed(c: CodecCtx): DescEnum[] {
  const out = new Map<string, DescEnum>();
  for (const r of c.rules.values()) {
    if (r.rule.kind !== "fields") continue;
    for (const x of r.fields) {
      const e = x.resource || x.sub ? undefined : enumOfField(x.f);
      if (e && !out.has(e.typeName)) out.set(e.typeName, e);
    }
  }
  return [...out.values()];
}

const nullId = (typeName: string) => typeName.slice(typeName.lastIndexOf(".") + 1);

/** Results a2a.json writes as null (google.protobuf.Empty), read back as the empty message. */
function printNullResults(c: CodecCtx): void {
  for (const name of c.dialect.nullResults) {
    const id = nullId(name);
    c.f.print(c.f.jsDoc(`${name}: a2a.json writes null.`));
    c.f.print("function ", encoderName(id), "()", ...c.t(": null"), " {\n  return null;\n}");
    c.f.print();
    c.f.print(c.f.jsDoc(`${name} read from a2a.json: whatever it holds, the empty message.`));
    c.f.print("function ", decoderName(id), "()", ...c.t(": ", c.jsonObject), " {\n  return {};\n}");
    c.f.print();
  }
}

function printCodec(c: CodecCtx, f: GeneratedFile, name: string, codecType: ReturnType<GeneratedFile["import"]>): void {
  const entry = (typeName: string, id: string) =>
    `    ${JSON.stringify(typeName)}: { encode: ${encoderName(id)}, decode: ${decoderName(id)} },`;
  const d = c.dialect;
  f.print(f.jsDoc(prose(codecDoc)));
  f.print(f.export("const", name), ...c.t(": ", codecType), " = ", compatJsonHelper("jsonRpcCodec"), "(");
  f.print("  {");
  const rows = [
    ...[...c.rules.values()].map((r) => entry(r.m.typeName, r.id)),
    ...d.nullResults.map((n) => entry(n, nullId(n))),
  ];
  for (const row of rows) for (const l of wrapLine([row])) f.print(...l);
  f.print("  },");
  f.print("  ", printFormatted(d.runtimeNames, "  "), ",");
  f.print(");");
}
