/**
 * The binary's request and response bytes around protobuf-es: the parts of the wire work a plugin process
 * pays for cold, done with less.
 *
 * Request: buf and protoc send the comments and locations (FileDescriptorProto.source_code_info) of every
 * file, imports included: 126 KB of the 240 KB request for both A2A versions, most of it descriptor.proto's
 * and google/api's. The outputs read the comments of the files they generate and of no other, so
 * `withoutImportedSourceInfo` drops the others' before protobuf-es decodes the request (10-25 ms less per
 * process here). The bundle test (test/host/bundle.test.ts) holds the binary's answers to the bytes of an
 * in-process run() on the whole request.
 *
 * Response: `encodeResponse` writes the files (CodeGeneratorResponse.file, the last field) into one buffer
 * sized first, after protobuf-es's encoding of the rest: the bytes protobuf-es writes (fields in number
 * order), without its buffer growing by doubling through a megabyte of content. A file with more than a name
 * and content is encoded by protobuf-es.
 *
 * Grammar of the wire format read here: a message is a sequence of fields, each a varint tag (field number
 * << 3 | wire type) and a value: wire type 0 a varint, 1 eight bytes, 2 a varint length and that many bytes,
 * 5 four bytes. Any other wire type, or a field that runs past its message, leaves the request as it came, so
 * that protobuf-es reports it. Field numbers come from the descriptors of @bufbuild/protobuf/wkt.
 */
import { clone, isFieldSet, toBinary } from "@bufbuild/protobuf";
import {
  type CodeGeneratorResponse,
  type CodeGeneratorResponse_File,
  CodeGeneratorRequestSchema,
  CodeGeneratorResponse_FileSchema,
  CodeGeneratorResponseSchema,
  FileDescriptorProtoSchema,
} from "@bufbuild/protobuf/wkt";

const LEN = 2;
const tagOf = (field: number, wireType: number) => field * 8 + wireType;
const REQUEST_FILE_TO_GENERATE = tagOf(CodeGeneratorRequestSchema.field.fileToGenerate.number, LEN);
const REQUEST_PROTO_FILE = tagOf(CodeGeneratorRequestSchema.field.protoFile.number, LEN);
const FILE_NAME = tagOf(FileDescriptorProtoSchema.field.name.number, LEN);
const FILE_SOURCE_INFO = tagOf(FileDescriptorProtoSchema.field.sourceCodeInfo.number, LEN);
const RESPONSE_FILE = tagOf(CodeGeneratorResponseSchema.field.file.number, LEN);
const OUT_NAME = tagOf(CodeGeneratorResponse_FileSchema.field.name.number, LEN);
const OUT_CONTENT = tagOf(CodeGeneratorResponse_FileSchema.field.content.number, LEN);

/** A field of a message: its tag, where it starts, where its value (wire type 2: its bytes) starts, its end. */
interface Field {
  readonly tag: number;
  readonly start: number;
  readonly value: number;
  readonly end: number;
}

/** The fields of bytes[from, to), or undefined when they are not well formed. */
function fieldsOf(bytes: Uint8Array, from: number, to: number): Field[] | undefined {
  const fields: Field[] = [];
  let pos = from;
  const varint = (): number | undefined => {
    let value = 0;
    for (let scale = 1; pos < to && scale <= 2 ** 49; scale *= 128) {
      const b = bytes[pos++] as number;
      value += (b & 127) * scale;
      if (b < 128) return value;
    }
    return undefined;
  };
  while (pos < to) {
    const start = pos;
    const tag = varint();
    if (tag === undefined) return undefined;
    const wireType = tag % 8;
    let value = pos;
    if (wireType === 0) {
      if (varint() === undefined) return undefined;
    } else if (wireType === 1 || wireType === 5) {
      pos += wireType === 1 ? 8 : 4;
    } else if (wireType === LEN) {
      const length = varint();
      if (length === undefined) return undefined;
      value = pos;
      pos += length;
    } else {
      return undefined;
    }
    if (pos > to) return undefined;
    fields.push({ tag, start, value, end: pos });
  }
  return fields;
}

/** The request without the source info of the files it does not ask to generate (see the header). */
export function withoutImportedSourceInfo(request: Uint8Array): Uint8Array {
  const fields = fieldsOf(request, 0, request.length);
  if (fields === undefined) return request;
  const utf8 = new TextDecoder();
  const text = (f: Field) => utf8.decode(request.subarray(f.value, f.end));
  const generated = new Set(fields.filter((f) => f.tag === REQUEST_FILE_TO_GENERATE).map(text));
  const parts: Uint8Array[] = [];
  let copied = 0;
  for (const file of fields) {
    if (file.tag !== REQUEST_PROTO_FILE) continue;
    const inner = fieldsOf(request, file.value, file.end);
    if (inner === undefined) continue;
    const name = inner.find((f) => f.tag === FILE_NAME);
    const kept = inner.filter((f) => f.tag !== FILE_SOURCE_INFO);
    if (name === undefined || kept.length === inner.length || generated.has(text(name))) continue;
    const length = kept.reduce((n, f) => n + f.end - f.start, 0);
    parts.push(request.subarray(copied, file.start), varints(REQUEST_PROTO_FILE, length));
    for (const f of kept) parts.push(request.subarray(f.start, f.end));
    copied = file.end;
  }
  if (copied === 0) return request;
  parts.push(request.subarray(copied));
  return Buffer.concat(parts);
}

/** The response's bytes, as toBinary(CodeGeneratorResponseSchema, response) gives them (see the header). */
export function encodeResponse(response: CodeGeneratorResponse): Uint8Array {
  const head = toBinary(CodeGeneratorResponseSchema, withoutFiles(response));
  const files = response.file.map(fileRecord);
  const size = files.reduce((n, f) => n + f.size, head.length);
  const out = Buffer.allocUnsafe(size);
  out.set(head, 0);
  let pos = head.length;
  for (const f of files) pos = f.write(out, pos);
  if (pos !== size) throw new Error(`CodeGeneratorResponse: wrote ${pos} bytes of ${size}`);
  return out;
}

/** The response with no files, for protobuf-es to encode the other fields. */
function withoutFiles(response: CodeGeneratorResponse): CodeGeneratorResponse {
  const head = clone(CodeGeneratorResponseSchema, response);
  head.file = [];
  return head;
}

/** One `file` field of the response: its size in bytes, and how to write it at pos (returns the end). */
function fileRecord(file: CodeGeneratorResponse_File): {
  size: number;
  write: (out: Buffer, pos: number) => number;
} {
  if (!onlyNameAndContent(file)) {
    const bytes = toBinary(CodeGeneratorResponse_FileSchema, file);
    const prefix = varints(RESPONSE_FILE, bytes.length);
    return { size: prefix.length + bytes.length, write: (out, pos) => writeBytes(out, pos, prefix, bytes) };
  }
  const nameLength = Buffer.byteLength(file.name, "utf8");
  const contentLength = Buffer.byteLength(file.content, "utf8");
  const nameHead = varints(OUT_NAME, nameLength);
  const contentHead = varints(OUT_CONTENT, contentLength);
  const inner = nameHead.length + nameLength + contentHead.length + contentLength;
  const prefix = varints(RESPONSE_FILE, inner);
  return {
    size: prefix.length + inner,
    write: (out, pos) => {
      let at = writeBytes(out, pos, prefix, nameHead);
      at += out.write(file.name, at, "utf8");
      out.set(contentHead, at);
      at += contentHead.length;
      return at + out.write(file.content, at, "utf8");
    },
  };
}

/** Whether protobuf-es would write the file as its name and content only, both set. */
function onlyNameAndContent(file: CodeGeneratorResponse_File): boolean {
  const { name, insertionPoint, content, generatedCodeInfo } = CodeGeneratorResponse_FileSchema.field;
  return (
    isFieldSet(file, name) &&
    isFieldSet(file, content) &&
    !isFieldSet(file, insertionPoint) &&
    !isFieldSet(file, generatedCodeInfo) &&
    file.$unknown === undefined
  );
}

function writeBytes(out: Buffer, pos: number, a: Uint8Array, b: Uint8Array): number {
  out.set(a, pos);
  out.set(b, pos + a.length);
  return pos + a.length + b.length;
}

/** The values as varints, one after the other. */
function varints(...values: number[]): Uint8Array {
  const bytes: number[] = [];
  for (let v of values) {
    while (v >= 128) {
      bytes.push((v % 128) + 128);
      v = Math.floor(v / 128);
    }
    bytes.push(v);
  }
  return Uint8Array.from(bytes);
}
