/**
 * `protoc-gen-a2a sync <dir>`: stages the pinned A2A protos (the lock shipped in the
 * package, proto/a2a.lock.json) and the google/api protos they import into <dir>, a buf
 * module root ready for `buf generate`.
 *
 * Rule: the pinned files come from A2A_SPEC_DIR when set, else they are downloaded at the
 * pinned commits and their sha256 checked (see source-env.ts); google/api comes from
 * google-proto-files when installed, else from the copy shipped in dist/proto. Files of
 * <dir> other than the staged ones are left alone. One line on stdout when done; one line
 * on stderr and exit code 1 on a SyncError, 2 on bad usage.
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { sourceFromEnv } from "./source-env.js";
import { readLock, SyncError, syncProtos } from "./sync-protos.js";
import { packageRoot } from "../package-paths.js";

export const syncUsage =
  "Usage: protoc-gen-a2a sync <dir>\n" +
  "  Stages the pinned A2A protos (v0.3.0/a2a.proto, v1.0.1/a2a.proto) and the google/api protos\n" +
  "  they import into <dir>, a buf module root. The pinned files come from A2A_SPEC_DIR (a folder\n" +
  "  holding v0.3.0/a2a.proto and v1.0.1/a2a.proto) when set; otherwise they are downloaded from\n" +
  "  https://raw.githubusercontent.com/a2aproject/A2A/<commit>/<path> (A2A_SPEC_BASE_URL replaces\n" +
  "  the prefix; A2A_SPEC_TIMEOUT_MS bounds each download, default 30000). Each file's sha256 is\n" +
  "  checked against the package's proto/a2a.lock.json; nothing is written unless all match.\n" +
  "  Run it before `buf generate`: until it has run, buf finds no A2A protos and says the input\n" +
  '  "had no .proto files".\n';

/** Runs the subcommand with the arguments after `sync`; resolves to the exit code. */
export async function runSyncCommand(args: readonly string[], cwd = process.cwd()): Promise<number> {
  if (args[0] === "--help" || args[0] === "-h") {
    process.stdout.write(syncUsage);
    return 0;
  }
  if (args.length !== 1 || args[0]!.startsWith("-")) {
    process.stderr.write(`protoc-gen-a2a sync: expected one folder, got ${JSON.stringify(args)}\n${syncUsage}`);
    return 2;
  }
  const outDir = resolve(cwd, args[0]!);
  try {
    const lock = readLock(fileURLToPath(new URL("proto/a2a.lock.json", packageRoot)));
    const r = await syncProtos({ lock, source: sourceFromEnv(lock, process.env, cwd), outDir });
    process.stdout.write(
      `protoc-gen-a2a sync: staged ${r.pinned.join(", ")} (sha256 verified) from ${r.from} ` +
        `and ${r.google.length} google/api files from ${r.googleProtoRoot} into ${outDir}\n`,
    );
    return 0;
  } catch (e) {
    if (!(e instanceof SyncError)) throw e;
    process.stderr.write(`protoc-gen-a2a sync: ${e.message}\n`);
    return 1;
  }
}
