/**
 * What every binding checks before a handler runs, and the context it hands
 * the handler: the negotiated version (VersionNotSupportedError otherwise) and
 * the declared extensions (ExtensionSupportRequiredError when a required one
 * is missing, in versions that define that error).
 */
import type { A2aServiceDefinition, HandlerContext } from "./definition.js";
import { A2AError } from "./a2a-error.js";
import { parseExtensions, type VersionResult } from "./negotiation.js";

export interface Admitted {
  readonly version: string;
  readonly extensions: string[];
}

/** Throws the A2AError the binding must answer with. */
export function admitCall(
  def: A2aServiceDefinition,
  version: VersionResult,
  extensionsValue: string | null | undefined,
  required: readonly string[] | undefined,
): Admitted {
  if (!version.ok) {
    const speaks = def.protocolVersion;
    const header = def.headers.versionHeader ?? "A2A-Version";
    throw new A2AError(
      "VersionNotSupportedError",
      version.missing
        ? `The ${header} header is missing, so the call is read as version ${version.requested}; ` +
            `this interface speaks ${speaks}: send ${header}: ${speaks}`
        : `Protocol version ${version.requested} is not supported; this interface speaks ${speaks}`,
    );
  }
  const extensions = parseExtensions(extensionsValue);
  const missing = (required ?? []).filter((x) => !extensions.includes(x));
  if (missing.length > 0 && def.errors.some((e) => e.name === "ExtensionSupportRequiredError")) {
    throw new A2AError("ExtensionSupportRequiredError", `Required extension not declared: ${missing.join(", ")}`);
  }
  return { version: version.version, extensions };
}

/** The tenant a request message carries, if the version has a tenant field. */
export function tenantOf(def: A2aServiceDefinition, input: object, localName: string | undefined): string | undefined {
  if (!def.tenantField || !localName) return undefined;
  const v = (input as Record<string, unknown>)[localName];
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** A handler context whose signal and headers are built only if the handler reads them. */
export function lazyContext(
  source: { readonly signal: AbortSignal; readonly headers: Headers },
  admitted: Admitted,
  binding: HandlerContext["binding"],
  tenant: string | undefined,
): HandlerContext {
  return {
    get signal() {
      return source.signal;
    },
    get headers() {
      return source.headers;
    },
    protocolVersion: admitted.version,
    extensions: admitted.extensions,
    binding,
    tenant,
  };
}
