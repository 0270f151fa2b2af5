// The HandlerContext the task benchmarks call createTaskHandler's methods with directly (no server): every
// member a server's context has, with no tenant, no principal and no trace, at A2A 1.0 over JSON-RPC. What a
// call never changes is shared, as a server's lazy context makes nothing it is not asked for: per call only
// the signal and the context values are new.
import { createContextValues } from "@protoc-gen-a2a/runtime/protocol";

const headers = new Headers();
const query = new URLSearchParams();
const header = (name) => headers.get(name);

export function benchContext() {
  return {
    signal: new AbortController().signal,
    headers,
    header,
    protocolVersion: "1.0",
    extensions: [],
    binding: "JSONRPC",
    tenant: undefined,
    query,
    clientCertificate: undefined,
    values: createContextValues(),
    principal: undefined,
  };
}
