/**
 * Runs the plugin in-process: `buf build` compiles a temp module once into an
 * image (a FileDescriptorSet, dependencies first), which is wrapped in a
 * CodeGeneratorRequest as buf would hand it to the plugin; then
 * protocGenA2a.run(request) is called directly, with stderr captured.
 * Needs `npm run build` (dist/) and `npm run sync` (proto/staged/).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { vi } from "vitest";
import { clone, create, fromBinary } from "@bufbuild/protobuf";
import {
  CodeGeneratorRequestSchema,
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
  SourceCodeInfoSchema,
  type CodeGeneratorRequest,
  type FileDescriptorProto,
} from "@bufbuild/protobuf/wkt";
import { protocGenA2a } from "../../dist/plugin.js";
import { bufBin, repoRoot, run } from "./run.js";

/**
 * Compiles a module made of proto/staged/google, the given folders of proto/staged (e.g. "v1.0.1") and the given
 * folders (copied whole, relative paths kept) into the files of one image.
 */
export function buildImage(staged: readonly string[], extraRoots: readonly string[] = []): FileDescriptorProto[] {
  const dir = mkdtempSync(join(tmpdir(), "a2a-image-"));
  try {
    for (const d of ["google", ...staged]) cpSync(join(repoRoot, "proto/staged", d), join(dir, d), { recursive: true });
    for (const root of extraRoots) cpSync(root, dir, { recursive: true });
    writeFileSync(join(dir, "buf.yaml"), "version: v2\nmodules:\n  - path: .\n");
    const out = join(dir, "image.binpb");
    const r = run(bufBin, ["build", ".", "-o", out], { cwd: dir });
    if (r.status !== 0) throw new Error(`buf build failed:\n${r.stderr}`);
    return fromBinary(FileDescriptorSetSchema, readFileSync(out)).file;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function request(
  protoFile: FileDescriptorProto[],
  fileToGenerate: string[],
  opt: string[],
): CodeGeneratorRequest {
  for (const f of fileToGenerate) {
    if (!protoFile.some((p) => p.name === f)) throw new Error(`${f} is not in the image`);
  }
  return create(CodeGeneratorRequestSchema, { fileToGenerate, protoFile, parameter: opt.join(",") });
}

/**
 * request(), with the source info of one imported file padded by a comment of `padding` characters: the binary
 * drops imported files' source info before it decodes a request (src/host/plugin-wire.ts), so the run is the
 * same, on a request that many bytes larger.
 */
export function paddedRequest(
  protoFile: FileDescriptorProto[],
  fileToGenerate: string[],
  opt: string[],
  padding: number,
): CodeGeneratorRequest {
  const at = protoFile.findIndex((f) => !fileToGenerate.includes(f.name));
  if (at < 0) throw new Error("paddedRequest: the image has no imported file");
  const padded = clone(FileDescriptorProtoSchema, protoFile[at]!);
  padded.sourceCodeInfo = create(SourceCodeInfoSchema, {
    location: [{ path: [], span: [0, 0, 0], leadingComments: "x".repeat(padding) }],
  });
  return request(
    protoFile.map((f, i) => (i === at ? padded : f)),
    fileToGenerate,
    opt,
  );
}

export interface InProcessResult {
  /** Generated files by name; empty when the run failed. */
  files: Map<string, string>;
  /** Everything the run wrote to stderr. */
  stderr: string;
  /** The error the run threw (buf would print it after "protoc-gen-a2a: " and fail). */
  error: Error | undefined;
}

export function runPlugin(req: CodeGeneratorRequest): InProcessResult {
  const spy = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    const res = protocGenA2a.run(req);
    return { files: new Map(res.file.map((f) => [f.name, f.content])), stderr: stderrOf(spy), error: undefined };
  } catch (e) {
    return { files: new Map(), stderr: stderrOf(spy), error: e as Error };
  } finally {
    spy.mockRestore();
  }
}

function stderrOf(spy: { mock: { calls: unknown[][] } }): string {
  return spy.mock.calls.map((c) => String(c[0])).join("");
}
