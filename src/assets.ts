/**
 * What scripts/build-assets.js prepared at build time, in dist/generated/ next to this module once built:
 * standalone validators, precompiled templates, the shipped override files and the source table. This
 * module only finds and loads them; each stage owns what it reads (overrides/override-assets.ts,
 * emit/docs/docs.ts, emit/docs/sources.ts), so no stage imports another through here.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const generated = new URL("./generated/", import.meta.url);
const require = createRequire(import.meta.url);

/** A CommonJS module of dist/generated/ (validators, templates). */
export function loadGeneratedModule<T>(file: string): T {
  try {
    return require(new URL(file, generated).pathname) as T;
  } catch (e) {
    throw new Error(`${new URL(file, generated).pathname} is missing; run \`npm run build\` (${(e as Error).message})`);
  }
}

/** A JSON file of dist/generated/. */
export function readGeneratedJson<T>(file: string): T {
  return JSON.parse(readFileSync(new URL(file, generated), "utf8")) as T;
}
