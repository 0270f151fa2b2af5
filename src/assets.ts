/**
 * What scripts/build-assets.js prepared at build time: standalone validators,
 * precompiled templates, the shipped override files and the source table. Loaded from
 * dist/generated/, next to this module once built.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { OverrideFile } from "./overrides/load-overrides.js";
import type { TemplateName } from "./emit/template-options.js";

export interface Validator {
  (data: unknown): boolean;
  errors?: import("ajv").ErrorObject[] | null;
}

const generated = new URL("./generated/", import.meta.url);
const require = createRequire(import.meta.url);
let validators: Record<string, Validator> | undefined;
let templates: Record<TemplateName, unknown> | undefined;

function load<T>(file: string): T {
  try {
    return require(new URL(file, generated).pathname) as T;
  } catch (e) {
    throw new Error(`${new URL(file, generated).pathname} is missing; run \`npm run build\` (${(e as Error).message})`);
  }
}

/** The validator for the override-file schema ("file") or for a target key such as "api.contentTypes". */
export function validator(
  name: "file" | `${"api" | "operations" | "compat" | "input"}.${string}`,
): Validator | undefined {
  validators ??= load<Record<string, Validator>>("validators.cjs");
  return validators[name === "file" ? "validateFile" : name.replace(".", "_")];
}

export function templateSpec(name: TemplateName): unknown {
  templates ??= load<Record<TemplateName, unknown>>("templates.cjs");
  return templates[name];
}

export function shippedOverrides(): OverrideFile[] {
  return JSON.parse(readFileSync(new URL("shipped-overrides.json", generated), "utf8")) as OverrideFile[];
}

/** An upstream file the docs cite by tag, pinned at the commit of its version (proto/a2a.lock.json). */
export interface UpstreamSource {
  readonly tag: string;
  readonly version: string;
  readonly gitTag: string;
  readonly commit: string;
  readonly path: string;
  readonly url: string;
  readonly title: string;
  readonly citation: string;
}

/** A document of the project the docs cite (not published), with its parts and the public sources each rests on. */
export interface ProjectSource {
  readonly tag: string;
  readonly title: string;
  readonly where: string;
  readonly description: string;
  readonly parts: readonly { readonly id: string; readonly covers: string; readonly restsOn: string }[];
}

/** Every source tag the docs use (proto/a2a.sources.json joined with the lock's commits). */
export interface SourceTable {
  readonly repository: string;
  readonly upstream: readonly UpstreamSource[];
  readonly project: readonly ProjectSource[];
}

export function sourceTable(): SourceTable {
  return JSON.parse(readFileSync(new URL("sources.json", generated), "utf8")) as SourceTable;
}
