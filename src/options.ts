/**
 * Plugin options of protoc-gen-a2a, parsed strictly. protoplugin parses its
 * standard options (target, import_extension, js_import_style,
 * keep_empty_files, ts_nocheck, rewrite_imports, …) and passes the rest here;
 * an unknown key stops generation with the list of valid keys.
 *
 *   emit=routes+docs+stubs  which outputs to write (default: all; stubs need routes)
 *   overrides=PATH        an override file to apply; repeat for more
 *   default_overrides=false  do not apply the override files shipped with the plugin
 */
export const outputKinds = ["routes", "docs", "stubs"] as const;
export type OutputKind = (typeof outputKinds)[number];

export interface A2aOptions {
  emit: ReadonlySet<OutputKind>;
  overrides: readonly string[];
  defaultOverrides: boolean;
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
const ownKeys = ["emit", "overrides", "default_overrides"];

export class OptionError extends Error {
  override name = "OptionError";
}

export function parseA2aOptions(raw: readonly { key: string; value: string }[]): A2aOptions {
  let emit = new Set<OutputKind>(outputKinds);
  const overrides: string[] = [];
  let defaultOverrides = true;
  for (const { key, value } of raw) {
    switch (key) {
      case "emit": {
        const kinds = value.split("+").filter((k) => k !== "");
        const bad = kinds.filter((k) => !(outputKinds as readonly string[]).includes(k));
        if (bad.length > 0 || kinds.length === 0) {
          throw new OptionError(`option emit=${value}: unknown output "${bad[0] ?? ""}"; valid outputs are ${outputKinds.join(", ")} (join with +)`);
        }
        emit = new Set(kinds as OutputKind[]);
        break;
      }
      case "overrides":
        if (value === "") throw new OptionError("option overrides= needs a file path");
        overrides.push(value);
        break;
      case "default_overrides":
        if (value !== "true" && value !== "false") throw new OptionError(`option default_overrides=${value}: use true or false`);
        defaultOverrides = value === "true";
        break;
      default:
        throw new OptionError(
          `unknown option "${key}"; valid options are ${[...ownKeys, ...standardKeys].join(", ")}`,
        );
    }
  }
  return { emit, overrides, defaultOverrides };
}
