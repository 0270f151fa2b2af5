/**
 * Reads override files: YAML → checked against schemas/overrides.schema.json
 * (file shape) and against the schema of each entry's target (value shape).
 * Problems name the file, the line and the entry id; a syntax error gives its
 * position and the parser's error code, never text of the file.
 *
 * Bounds: a file is at most maxOverrideFileBytes (read by src/plugin.ts), and
 * its aliases may not expand it past that size either (yaml-expansion.ts): a
 * few kilobytes of aliases would otherwise become megabytes of values and
 * hundreds of thousands of problems. Such a file is one problem naming the
 * file and the line of the alias that went over.
 */
import { createRequire } from "node:module";
import type { ErrorObject } from "ajv";
import { readGeneratedJson } from "../assets.js";
import { validator } from "./override-assets.js";
import type { Problems } from "../generation-error.js";
import { measureExpansion } from "./yaml-expansion.js";

/** Override files are small YAML files: at most this many bytes, read or expanded by aliases. */
export const maxOverrideFileBytes = 1024 * 1024;

export interface OverrideEntry {
  readonly file: string;
  readonly line: number;
  readonly id: string;
  readonly target: string;
  readonly value: unknown;
  readonly source: { readonly document: string; readonly section: string };
  readonly decision: string;
  /** The id of an entry of an earlier file of the package that this one takes the place of (user files only). */
  readonly replaces?: string;
}

export interface OverrideFile {
  readonly file: string;
  /** Shipped with the plugin (skipped when its package is not in the request). */
  readonly shipped?: boolean;
  readonly package: string;
  readonly entries: readonly OverrideEntry[];
}

/** The override files shipped with the plugin, parsed at build time (scripts/build-assets.js). */
export function shippedOverrides(): OverrideFile[] {
  return readGeneratedJson<OverrideFile[]>("shipped-overrides.json");
}

/**
 * The YAML parser is loaded only when a file is parsed (the shipped files are parsed at build time); Node's
 * module cache loads it once.
 */
const loadYaml = () => createRequire(import.meta.url)("yaml") as typeof import("yaml");

export function describeAjvErrors(errors: readonly ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((e) => {
      const at = e.instancePath ? `${e.instancePath}: ` : "";
      if (e.keyword === "additionalProperties") return `${at}unknown key "${String(e.params["additionalProperty"])}"`;
      if (e.keyword === "enum") return `${at}must be one of ${JSON.stringify(e.params["allowedValues"])}`;
      return `${at}${e.message ?? e.keyword}`;
    })
    .join("; ");
}

/** What the file's top level is when it is not a mapping ("a list", "nothing"), else undefined. */
function topLevelShape(raw: unknown): string | undefined {
  if (raw === null || raw === undefined) return "nothing";
  if (Array.isArray(raw)) return "a list";
  return typeof raw === "object" ? undefined : `a single ${typeof raw} value`;
}

export function loadOverrideFile(path: string, problems: Problems, text: string): OverrideFile | undefined {
  const { LineCounter, parseDocument } = loadYaml();
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    for (const e of doc.errors) {
      const pos = lines.linePos(e.pos[0]);
      // The code only: the parser's messages can quote the file, which may not be YAML at all.
      problems.add(`${path}:${pos.line}:${pos.col}: YAML syntax error (${e.code})`);
    }
    return undefined;
  }
  const expansion = measureExpansion(loadYaml(), doc, maxOverrideFileBytes);
  if (!expansion.ok) {
    const line = lines.linePos(expansion.offset).line;
    problems.add(
      expansion.why === "cycle"
        ? `${path}:${line}: an alias inside the node it names; ` +
            "override files cannot hold values that contain themselves"
        : `${path}:${line}: the aliases expand the file past ${maxOverrideFileBytes} bytes here; ` +
            `an override file may have at most ${maxOverrideFileBytes} bytes, aliases expanded`,
    );
    return undefined;
  }
  // The expansion is bounded above, exactly; the yaml package's own alias count (100 by default) would refuse a
  // file that shares one anchored source among a hundred entries, and let through 99 aliases of a large node.
  const raw: unknown = doc.toJS({ maxAliasCount: -1 });
  const data = raw as { entries?: { id?: unknown }[] } | null;
  const entryNodes =
    (doc.get("entries") as { items?: { range?: [number, number, number] }[] } | undefined)?.items ?? [];
  const shape = topLevelShape(raw);
  if (shape !== undefined) {
    problems.add(`${path}: the file holds ${shape}; an override file is a mapping of format, package and entries`);
    return undefined;
  }
  const format = (raw as { format?: unknown }).format;
  if (format !== 2) {
    problems.add(
      `${path}: override file format ${format === undefined ? "1 (no format key)" : JSON.stringify(format)} ` +
        "is not read; this plugin reads format 2: add `format: 2`, and in compat entries rename toV03/toV10 " +
        "to toOlder/toNewer and the unpaired lists v03/v10 to older/newer",
    );
    return undefined;
  }
  const validateFile = validator("file")!;
  if (!validateFile(raw)) {
    // Name the entry (line and id) of each schema problem, not just its index.
    for (const err of validateFile.errors ?? []) {
      const m = /^\/entries\/(\d+)(.*)$/.exec(err.instancePath);
      if (!m) {
        problems.add(`${path}: does not match schemas/overrides.schema.json: ${describeAjvErrors([err])}`);
        continue;
      }
      const i = Number(m[1]);
      const line = lines.linePos(entryNodes[i]?.range?.[0] ?? 0).line;
      const id = data?.entries?.[i]?.id;
      const what = describeAjvErrors([{ ...err, instancePath: m[2] ?? "" }]);
      problems.add(`${path}:${line}: entry ${typeof id === "string" ? `"${id}"` : `#${i + 1}`}: ${what}`);
    }
    return undefined;
  }
  const typed = raw as { package: string; entries: Omit<OverrideEntry, "file" | "line">[] };
  const ids = new Map<string, number>();
  const entries = typed.entries.map((e, i) => {
    const line = lines.linePos(entryNodes[i]?.range?.[0] ?? 0).line;
    const first = ids.get(e.id);
    if (first !== undefined) problems.add(`${path}:${line}: entry "${e.id}": the id is already used at line ${first}`);
    ids.set(e.id, line);
    return { ...e, file: path, line };
  });
  return { file: path, package: typed.package, entries };
}
