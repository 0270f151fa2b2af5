/**
 * Operation correspondence between two versions, in every binding: JSON-RPC
 * method ↔ method, HTTP+JSON route ↔ route, gRPC method path ↔ path (the
 * packages differ: a2a.v1 and lf.a2a.v1). Built from the two definitions and
 * the operation pairs of the compat module.
 */
import type { A2aServiceDefinition, OperationInfo } from "../core/definition.js";
import type { OperationPair } from "./bridge.js";

export interface OperationNames {
  readonly rpc: string;
  readonly grpcPath: string;
  readonly jsonrpcMethod: string;
  /** "VERB template" of each binding, tenant variants and aliases included. */
  readonly routes: readonly string[];
}

export interface OperationCorrespondence {
  readonly rows: readonly { readonly older: OperationNames | null; readonly newer: OperationNames | null }[];
  /** The other version's name of an operation in one binding, or null when that version has no such operation. */
  counterpart(binding: "JSONRPC" | "HTTP+JSON" | "GRPC", name: string): string | readonly string[] | null | undefined;
}

export function operationCorrespondence(
  older: A2aServiceDefinition,
  newer: A2aServiceDefinition,
  pairs: readonly OperationPair[],
): OperationCorrespondence {
  const names = (def: A2aServiceDefinition, op: OperationInfo): OperationNames => ({
    rpc: op.name,
    grpcPath: `/${def.service.typeName}/${op.name}`,
    jsonrpcMethod: op.jsonrpcMethod,
    routes: op.routes.map((r) => `${r.method} ${r.template}`),
  });
  const rows: { older: OperationNames | null; newer: OperationNames | null }[] = newer.operations.map((n) => {
    const pair = pairs.find((p) => p.newer === n.name);
    const o = pair ? older.byName.get(pair.older) : undefined;
    return { older: o ? names(older, o) : null, newer: names(newer, n) };
  });
  for (const o of older.operations)
    if (!rows.some((r) => r.older?.rpc === o.name)) rows.push({ older: names(older, o), newer: null });
  const key = { JSONRPC: "jsonrpcMethod", GRPC: "grpcPath" } as const;
  return {
    rows,
    counterpart(binding, name) {
      for (const r of rows) {
        for (const [mine, other] of [
          [r.older, r.newer],
          [r.newer, r.older],
        ] as const) {
          if (!mine) continue;
          const hit = binding === "HTTP+JSON" ? mine.routes.includes(name) : mine[key[binding]] === name;
          if (hit) return other ? (binding === "HTTP+JSON" ? other.routes : other[key[binding]]) : null;
        }
      }
      return undefined;
    },
  };
}
