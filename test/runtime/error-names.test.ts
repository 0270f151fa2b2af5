/**
 * A2AError takes a typed name (A2AErrorName): every error of the generated catalogs of both pinned versions,
 * the standard ones, and the runtime's own ServerError and UnknownError. The list in the runtime is checked here
 * against the generated catalogs both ways, at compile time (the generated name unions are assignable to it)
 * and at run time (the same names, no more); a name outside it does not compile, and A2AError.named keeps a
 * name known only at run time as given, which the bindings then answer as the catalog says.
 */
import { A2AError, type A2AErrorName } from "@protoc-gen-a2a/runtime";
import { toJsonRpcError } from "@protoc-gen-a2a/runtime/protocol";
import { describe, expect, it } from "vitest";
import * as v03 from "../../generated-samples/v0.3.0/a2a_a2a.js";
import * as v03errors from "../../generated-samples/v0.3.0/a2a_errors.js";
import * as v10 from "../../generated-samples/v1.0.1/a2a_a2a.js";
import * as v10errors from "../../generated-samples/v1.0.1/a2a_errors.js";

/** The names the runtime makes itself: not in any catalog. */
const RUNTIME_NAMES = ["ServerError", "UnknownError"] as const;

/** Every generated error name is one A2AError takes: this does not compile when the runtime's list lacks one. */
const fromCatalogs: readonly A2AErrorName[] = [
  ...v10errors.A2AServiceErrors.map((e): v10errors.A2AServiceErrorName => e.name),
  ...v03errors.A2AServiceErrors.map((e): v03errors.A2AServiceErrorName => e.name),
  ...v10errors.A2AServiceStandardErrors.map((e) => e.name),
  ...v03errors.A2AServiceStandardErrors.map((e) => e.name),
];

/** Each name of A2AErrorName, once: a Record over the union does not compile with one left out or one too many. */
const listed: Record<A2AErrorName, true> = {
  TaskNotFoundError: true,
  TaskNotCancelableError: true,
  PushNotificationNotSupportedError: true,
  UnsupportedOperationError: true,
  ContentTypeNotSupportedError: true,
  InvalidAgentResponseError: true,
  ExtendedAgentCardNotConfiguredError: true,
  AuthenticatedExtendedCardNotConfiguredError: true,
  ExtensionSupportRequiredError: true,
  VersionNotSupportedError: true,
  JSONParseError: true,
  InvalidRequestError: true,
  MethodNotFoundError: true,
  InvalidParamsError: true,
  InternalError: true,
  UnauthenticatedError: true,
  PermissionDeniedError: true,
  ServerError: true,
  UnknownError: true,
};

describe("A2AErrorName", () => {
  it("holds the generated catalogs' names of both versions and the runtime's own, no others", () => {
    const expected = new Set<string>([...fromCatalogs, ...RUNTIME_NAMES]);
    expect(Object.keys(listed).sort()).toEqual([...expected].sort());
  });

  it("a misspelt name does not compile", () => {
    // @ts-expect-error: not an A2AErrorName
    const misspelt = new A2AError("TaskNotFound");
    expect(misspelt.type).toBe("TaskNotFound");
  });

  it("A2AError.named keeps a run-time name, which the bindings answer by its catalog entry", () => {
    const known = A2AError.named("TaskNotFoundError", "gone");
    expect(known).toBeInstanceOf(A2AError);
    expect(known.type).toBe("TaskNotFoundError");
    expect(toJsonRpcError(v10.A2AServiceV1_0, known)).toMatchObject({ code: -32001, message: "gone" });
    const peers = A2AError.named("SomePeersError");
    expect(peers.message).toBe("SomePeersError");
    expect(toJsonRpcError(v03.A2AServiceV0_3, peers)).toEqual({ code: -32603, message: "Internal error" });
  });
});
