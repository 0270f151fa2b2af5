/**
 * The override stage's build-time assets: the standalone validators of the override-file schema and of
 * each target's value (scripts/build-assets.js).
 */
import type { ErrorObject } from "ajv";
import { loadGeneratedModule } from "../assets.js";
import type { TargetScope } from "./targets.js";

export interface Validator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

let validators: Record<string, Validator> | undefined;

/** The validator for the override-file schema ("file") or for a target kind such as "api.contentTypes" (targets.ts). */
export function validator(name: "file" | `${TargetScope}.${string}`): Validator | undefined {
  validators ??= loadGeneratedModule<Record<string, Validator>>("validators.cjs");
  return validators[name === "file" ? "validateFile" : name.replace(".", "_")];
}
