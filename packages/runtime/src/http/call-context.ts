/**
 * What every binding checks before a handler runs, and the context it hands
 * the handler: the negotiated version (VersionNotSupportedError otherwise;
 * checked first, before the method or route is looked up: checkVersion),
 * the capability the operation needs (its rule's error when the agent card
 * does not declare it; card-rules.ts) and the declared extensions
 * (ExtensionSupportRequiredError when a required one is missing, in versions
 * that define that error; InvalidRequestError when the extensions header is
 * longer than limits.ts allows). The declared extensions the agent supports
 * are the activated ones, which the response echoes.
 */
import type { A2aServiceDefinition, HandlerContext, OperationInfo } from "../core/definition.js";
import { A2AError } from "../core/a2a-error.js";
import type { CardRules, CardRulesOf } from "../card/card-rules.js";
import { negotiateHttpVersion, parseExtensions, type VersionResult } from "./negotiation.js";
import { extensionsHeaderProblem } from "../core/limits.js";
import type { CoreRequest, CoreResponse } from "../core/server-types.js";
import { createContextValues, type ContextValues } from "../core/context-values.js";
import { principalKey, type Principal } from "../core/principal.js";
import type { ClientCertificate } from "../core/client-certificate.js";
import { headerRecord } from "../core/records.js";

export interface Admitted {
  readonly version: string;
  readonly extensions: string[];
  /** The declared extensions the agent supports, for the response's extensions header. */
  readonly activated: readonly string[];
}

const NONE: readonly string[] = Object.freeze([]);

/**
 * The negotiated version, or throws VersionNotSupportedError. Bindings call it before they look up the method
 * or route, so a version the interface does not speak is refused as such, not as an unknown method.
 */
export function checkVersion(def: A2aServiceDefinition, version: VersionResult): string {
  if (version.ok) return version.version;
  const speaks = def.protocolVersion;
  const header = def.headers.versionHeader ?? "A2A-Version";
  throw new A2AError(
    "VersionNotSupportedError",
    version.several
      ? `${header} names more than one version (${version.requested}); send one: ${header}: ${speaks}`
      : version.missing
        ? `The ${header} header is missing, so the call is read as version ${version.requested}; ` +
          `this interface speaks ${speaks}: send ${header}: ${speaks}`
        : `Protocol version ${version.requested} is not supported; this interface speaks ${speaks}`,
  );
}

/** The version of an HTTP call (header, else query parameter), checked: throws VersionNotSupportedError. */
export function checkHttpVersion(def: A2aServiceDefinition, req: CoreRequest): string {
  return checkVersion(def, negotiateHttpVersion(def, req));
}

/** Throws the A2AError the binding must answer with. */
export function admitCall(
  def: A2aServiceDefinition,
  op: OperationInfo,
  version: VersionResult,
  extensionsValue: string | null | undefined,
  card: CardRules,
): Admitted {
  const negotiated = checkVersion(def, version);
  const tooLong = extensionsHeaderProblem(extensionsValue, def.headers.extensionsHeader);
  if (tooLong) throw new A2AError("InvalidRequestError", tooLong);
  const refused = card.refusal(op);
  if (refused) throw refused;
  const extensions = parseExtensions(extensionsValue);
  const missing = card.required.length > 0 ? card.required.filter((x) => !extensions.includes(x)) : NONE;
  if (missing.length > 0 && def.errors.some((e) => e.name === "ExtensionSupportRequiredError")) {
    throw new A2AError("ExtensionSupportRequiredError", `Required extension not declared: ${missing.join(", ")}`);
  }
  const activated =
    card.supported.length > 0 && extensions.length > 0 ? extensions.filter((x) => card.supported.includes(x)) : NONE;
  return { version: negotiated, extensions, activated };
}

/**
 * admitCall for an HTTP binding (JSON-RPC, HTTP+JSON): the extensions from the request's headers, the version
 * the binding checked before it looked up the operation (checkHttpVersion).
 */
export function admitHttpCall(
  def: A2aServiceDefinition,
  op: OperationInfo,
  req: CoreRequest,
  cardRules: CardRulesOf,
  version: string,
): Admitted {
  return admitCall(
    def,
    op,
    { ok: true, version },
    req.header(def.headers.extensionsHeader),
    cardRules(() => req.headers),
  );
}

/** An HTTP response with the extensions header naming the activated extensions, when there are any. */
function withExtensionsEcho(def: A2aServiceDefinition, res: CoreResponse, admitted: Admitted): CoreResponse {
  if (admitted.activated.length === 0) return res;
  const echo = { [def.headers.extensionsHeader]: admitted.activated.join(", ") };
  return { ...res, headers: headerRecord(res.headers, echo) };
}

/** What a binding's serve function is told: `admitted` is set once the call passed admitHttpCall. */
export interface Seen {
  admitted?: Admitted;
}

/**
 * A binding's handler that echoes the activated extensions on every answer of an admitted call. Only a card or
 * requiredExtensions can activate extensions; without them the serve function is returned as it is.
 */
export function echoingExtensions(
  def: A2aServiceDefinition,
  options: { readonly agentCard?: unknown; readonly requiredExtensions?: readonly string[] },
  serve: (req: CoreRequest, seen: Seen) => Promise<CoreResponse>,
): (req: CoreRequest) => Promise<CoreResponse> {
  if (!options.agentCard && !options.requiredExtensions?.length) return (req) => serve(req, {});
  return async (req) => {
    const seen: Seen = {};
    const res = await serve(req, seen);
    return seen.admitted ? withExtensionsEcho(def, res, seen.admitted) : res;
  };
}

/** The tenant a request message carries, if the version has a tenant field. */
export function tenantOf(def: A2aServiceDefinition, input: object, localName: string | undefined): string | undefined {
  if (!def.tenantField || !localName) return undefined;
  const v = (input as Record<string, unknown>)[localName];
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** Where a call's context reads its signal, headers, query and client certificate, each on first use. */
export interface ContextSource {
  readonly signal: AbortSignal;
  readonly headers: Headers;
  /** One header without building `headers` (CoreRequest.header); else read from `headers`. */
  header?(name: string): string | null;
  readonly query?: URLSearchParams;
  readonly clientCertificate?: ClientCertificate | undefined;
}

/** A handler context whose signal and headers are built only if the handler reads them. */
export function lazyContext(
  source: ContextSource,
  admitted: Admitted,
  binding: HandlerContext["binding"],
  tenant: string | undefined,
): HandlerContext {
  return new LazyContext(source, admitted.version, admitted.extensions, binding, tenant);
}

/**
 * One per call, so its getters live on the prototype (an object literal with getters costs two closures and a
 * slow property definition per call). So signal, headers, values and principal are not own properties: `in` and
 * reading them work, Object.keys and a spread do not show them. The values are made on first use.
 */
class LazyContext implements HandlerContext {
  readonly #source: ContextSource;
  #values: ContextValues | undefined;

  constructor(
    source: ContextSource,
    readonly protocolVersion: string,
    readonly extensions: string[],
    readonly binding: HandlerContext["binding"],
    readonly tenant: string | undefined,
  ) {
    this.#source = source;
  }

  get signal(): AbortSignal {
    return this.#source.signal;
  }

  get headers(): Headers {
    return this.#source.headers;
  }

  header(name: string): string | null {
    const source = this.#source;
    return source.header ? source.header(name) : source.headers.get(name);
  }

  get query(): URLSearchParams {
    return this.#source.query ?? new URLSearchParams();
  }

  get clientCertificate(): ClientCertificate | undefined {
    return this.#source.clientCertificate;
  }

  get values(): ContextValues {
    this.#values ??= createContextValues();
    return this.#values;
  }

  get principal(): Principal | undefined {
    return this.#values?.get(principalKey);
  }
}
