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

/**
 * The validator for the override-file schema ("file") or for a target kind such as "api.contentTypes"
 * (targets.ts). Node's module cache loads the validators' module once.
 */
export function validator(name: "file" | `${TargetScope}.${string}`): Validator | undefined {
  const validators = loadGeneratedModule<Record<string, Validator>>("validators.cjs");
  return validators[name === "file" ? "validateFile" : name.replace(".", "_")];
}
