/**
 * Plugin options of protoc-gen-a2a, parsed strictly. protoplugin parses its
 * standard options (target, import_extension, js_import_style,
 * keep_empty_files, ts_nocheck, rewrite_imports, …) and passes the rest here;
 * an unknown key stops generation with the list of valid keys. Every refusal
 * lists the valid values: the standard options are checked here first
 * (checkStandardOptions), since protoplugin names only the option it refuses.
 * An option given twice with different values is refused, naming both (the
 * last used to win without a word), but overrides, services and
 * rewrite_imports, which add up.
 * Two are refused: bootstrap_wkt makes protoc-gen-es write the well-known
 * types for @bufbuild/protobuf itself, and this plugin's output imports none of
 * them; map_imports moves only the imports protoplugin resolves from
 * descriptors, while this plugin names the *_pb modules of its stubs and
 * cross-version module itself, so it would move some imports of a file and not
 * others. rewrite_imports moves them all.
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
];
const ownKeys = ["emit", "openapi_format", "overrides", "default_overrides", "services"];

export class OptionError extends Error {
  override name = "OptionError";
}

const booleanValue = (v: string) => (["true", "false", "1", "0"].includes(v) ? undefined : "use true or false");
const oneOf =
  (valid: readonly string[], aliases: readonly string[] = []) =>
  (v: string) =>
    [...valid, ...aliases].includes(v) ? undefined : `use ${valid.slice(0, -1).join(", ")} or ${valid.at(-1)}`;
/** protoplugin's own rule for rewrite_imports: PATTERN:TARGET. */
const importRule = (v: string) =>
  v.includes(":") ? undefined : "use PATTERN:TARGET (a glob of import paths, a colon, the path that replaces them)";
const targetKinds = ["ts", "js", "dts"];

type Check = (value: string) => string | undefined;
const notTaken =
  (why: string): Check =>
  () =>
    `not taken by protoc-gen-a2a: ${why}`;

/** Each standard option's check: undefined when the value is valid, else what to use instead. */
const standardChecks = new Map<string, Check>([
  [
    "target",
    (v) => {
      const bad = v.split("+").find((t) => !targetKinds.includes(t));
      return bad === undefined ? undefined : `unknown target "${bad}"; valid targets are ts, js, dts (join with +)`;
    },
  ],
  ["import_extension", oneOf(["none", "js", "ts"], ["", ".js", ".ts"])],
  ["js_import_style", oneOf(["module", "legacy_commonjs"])],
  ["keep_empty_files", booleanValue],
  ["ts_nocheck", booleanValue],
  ["elide_plugin_version", booleanValue],
  ["rewrite_imports", importRule],
  [
    "map_imports",
    notTaken(
      "it would move only some of the imports of the *_pb modules; " +
        "use rewrite_imports=./PATH/*_pb.js:TARGET, which moves them all",
    ),
  ],
  [
    "bootstrap_wkt",
    notTaken(
      "it makes protoc-gen-es write the well-known types for @bufbuild/protobuf itself, " +
        "and this plugin's output imports no well-known type; remove it",
    ),
  ],
]);

/** Refuses a bad value of a standard option, naming the valid ones, before protoplugin reads the parameter. */
export function checkStandardOptions(parameter: string): void {
  if (parameter === "") return;
  const given = new Map<string, string>();
  for (const raw of parameter.split(",")) {
    const i = raw.indexOf("=");
    const key = i < 0 ? raw : raw.slice(0, i);
    const why = standardChecks.get(key)?.(i < 0 ? "" : raw.slice(i + 1));
    if (why !== undefined) throw new OptionError(`option ${raw}: ${why}`);
    const before = given.get(key);
    if (before !== undefined && before !== raw && !REPEATABLE.has(key)) {
      throw new OptionError(`option ${raw}: ${key} is given twice (first ${before}); give it once`);
    }
    given.set(key, raw);
  }
}

/** The options that add up when given again; any other takes one value (a second, different one is refused). */
const REPEATABLE: ReadonlySet<string> = new Set(["overrides", "services", "rewrite_imports"]);

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
