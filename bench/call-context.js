// The HandlerContext the task benchmarks call createTaskHandler's methods with directly (no server): every
// member a server's context has, with no tenant, no principal and no trace, at A2A 1.0 over JSON-RPC.
import { createContextValues } from "@protoc-gen-a2a/runtime";

export function benchContext() {
  const headers = new Headers();
  return {
    signal: new AbortController().signal,
    headers,
    header: (name) => headers.get(name),
    protocolVersion: "1.0",
    extensions: [],
    binding: "JSONRPC",
    tenant: undefined,
    query: new URLSearchParams(),
    clientCertificate: undefined,
    values: createContextValues(),
    principal: undefined,
  };
}
