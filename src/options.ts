/**
 * Plugin options of protoc-gen-a2a, parsed strictly. protoplugin parses its
 * standard options (target, import_extension, js_import_style,
 * keep_empty_files, ts_nocheck, rewrite_imports, …) and passes the rest here;
 * an unknown key stops generation with the list of valid keys.
 *
 *   emit=routes+docs+stubs+openapi+openrpc  which outputs to write (default: all; stubs need routes)
 *   openapi_format=yaml   the OpenAPI documents as YAML (default) or json
 *   overrides=PATH        an override file to apply; repeat for more
 *   default_overrides=false  do not apply the override files shipped with the plugin
 *   services=PKG.Service  generate for exactly these services; repeat or join with + (default: every service
 *                         whose proto package an override file covers)
 */
export const outputKinds = ["routes", "docs", "stubs", "openapi", "openrpc"] as const;
export type OutputKind = (typeof outputKinds)[number];
export const openApiFormats = ["yaml", "json"] as const;
export type OpenApiFormat = (typeof openApiFormats)[number];

export interface A2aOptions {
  emit: ReadonlySet<OutputKind>;
  /** How the OpenAPI documents are written (emit=openapi). */
  openApiFormat: OpenApiFormat;
  overrides: readonly string[];
  defaultOverrides: boolean;
  /** Full names of the services to generate for; empty: every service an override file covers. */
  services: readonly string[];
}

const standardKeys = [
  "target",
  "import_extension",
  "js_import_style",
  "keep_empty_files",
  "ts_nocheck",
  "elide_plugin_version",
  "rewrite_imports",
  "map_imports",
  "bootstrap_wkt",
];
const ownKeys = ["emit", "openapi_format", "overrides", "default_overrides", "services"];

export class OptionError extends Error {
  override name = "OptionError";
}

export function parseA2aOptions(raw: readonly { key: string; value: string }[]): A2aOptions {
  let emit = new Set<OutputKind>(outputKinds);
  let openApiFormat: OpenApiFormat = "yaml";
  const overrides: string[] = [];
  let defaultOverrides = true;
  const services: string[] = [];
  for (const { key, value } of raw) {
    switch (key) {
      case "emit": {
        const kinds = value.split("+").filter((k) => k !== "");
        const bad = kinds.filter((k) => !(outputKinds as readonly string[]).includes(k));
        if (bad.length > 0 || kinds.length === 0) {
          throw new OptionError(
            `option emit=${value}: unknown output "${bad[0] ?? ""}"; ` +
              `valid outputs are ${outputKinds.join(", ")} (join with +)`,
          );
        }
        emit = new Set(kinds as OutputKind[]);
        break;
      }
      case "openapi_format":
        if (!(openApiFormats as readonly string[]).includes(value))
          throw new OptionError(`option openapi_format=${value}: use ${openApiFormats.join(" or ")}`);
        openApiFormat = value as OpenApiFormat;
        break;
      case "overrides":
        if (value === "") throw new OptionError("option overrides= needs a file path");
        overrides.push(value);
        break;
      case "default_overrides":
        if (value !== "true" && value !== "false")
          throw new OptionError(`option default_overrides=${value}: use true or false`);
        defaultOverrides = value === "true";
        break;
      case "services":
        services.push(...serviceNames(value));
        break;
      default:
        throw new OptionError(`unknown option "${key}"; valid options are ${[...ownKeys, ...standardKeys].join(", ")}`);
    }
  }
  return { emit, openApiFormat, overrides, defaultOverrides, services };
}

const fullName = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

function serviceNames(value: string): string[] {
  const names = value.split("+");
  const bad = names.find((n) => !fullName.test(n));
  if (bad !== undefined) {
    throw new OptionError(
      `option services=${value}: ${bad === "" ? "empty service name" : `"${bad}" is not a full service name`}; ` +
        "name services as PKG.Service (repeat the option or join with +)",
    );
  }
  return names;
}
