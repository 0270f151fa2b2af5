/**
 * `npm run sync`: stage the pinned protos into proto/staged (see sync-protos.ts).
 *
 * Rule: run from the repository root. The pinned files come from A2A_SPEC_DIR, else from
 * ../shared/a2a-spec when it exists, else they are downloaded (see source-env.ts). One
 * line on stderr either way; a SyncError exits 1 without a stack trace.
 */
import { resolve } from "node:path";
import { sourceFromEnv } from "./source-env.js";
import { readLock, SyncError, syncProtos } from "./sync-protos.js";

const root = process.cwd();
try {
  const lock = readLock(resolve(root, "proto/a2a.lock.json"));
  const source = sourceFromEnv(lock, process.env, root, "../shared/a2a-spec");
  const r = await syncProtos({ lock, source, outDir: resolve(root, "proto/staged"), clean: true });
  const count = r.pinned.length + r.google.length;
  process.stderr.write(
    `sync: staged ${count} files in proto/staged (sha256 verified) from ${r.from}` +
      `${source.kind === "download" ? " (pinned commits)" : ""}; google/api from ${r.googleProtoRoot}\n`,
  );
} catch (e) {
  if (!(e instanceof SyncError)) throw e;
  process.stderr.write(`sync: ${e.message}\n`);
  process.exit(1);
}
