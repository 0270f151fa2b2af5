/** `npm run sync`: stage the pinned protos (see sync-protos.ts). */
import { resolve } from "node:path";
import { SyncError, syncProtos } from "./sync-protos.js";

const root = process.cwd();
const specDir = resolve(root, process.env["A2A_SPEC_DIR"] ?? "../shared/a2a-spec");
try {
  const { staged } = syncProtos({
    lockFile: resolve(root, "proto/a2a.lock.json"),
    specDir,
    stagedDir: resolve(root, "proto/staged"),
  });
  process.stderr.write(`sync: staged ${staged.length} files in proto/staged (sha256 verified) from ${specDir}\n`);
} catch (e) {
  if (!(e instanceof SyncError)) throw e;
  process.stderr.write(`sync: ${e.message}\n`);
  process.exit(1);
}
