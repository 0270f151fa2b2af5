// Builds a CodeGeneratorRequest in-process, the way buf hands one to a plugin:
// `buf build` writes a binary image (a FileDescriptorSet, dependencies first),
// which is decoded with @bufbuild/protobuf and wrapped in a request.
// Measures nothing by itself.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { create, fromBinary } from "@bufbuild/protobuf";
import { CodeGeneratorRequestSchema, FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";

export const repoRoot = resolve(new URL("..", import.meta.url).pathname);
const bufBin = join(repoRoot, "node_modules", ".bin", "buf");

/**
 * @param input   directory given to `buf build` (a module root)
 * @param paths   `--path` arguments (files or directories, relative to cwd)
 * @param isTarget picks the files to generate from the image's file names
 * @param cwd     working directory for buf
 */
export function buildRequest({ input, paths, isTarget, cwd = repoRoot, parameter = "target=ts" }) {
  const tmp = mkdtempSync(join(tmpdir(), "a2a-bench-image-"));
  try {
    const out = join(tmp, "image.binpb");
    const args = ["build", input, ...paths.flatMap((p) => ["--path", p]), "-o", out];
    execFileSync(bufBin, args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
    const set = fromBinary(FileDescriptorSetSchema, readFileSync(out));
    const fileToGenerate = set.file.map((f) => f.name).filter(isTarget);
    if (fileToGenerate.length === 0) throw new Error(`buf build ${input}: no files to generate`);
    return create(CodeGeneratorRequestSchema, { fileToGenerate, protoFile: set.file, parameter });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
