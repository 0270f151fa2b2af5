/**
 * Chooses where the pinned files come from, from the environment.
 *
 * Rule, first match wins:
 *   1. A2A_SPEC_DIR, when set (relative to cwd): a folder holding each `specDirPath`;
 *   2. `localDir`, when given and it exists (this repository's ../shared/a2a-spec);
 *   3. a download of each pinned commit's file from A2A_SPEC_BASE_URL, by default
 *      https://raw.githubusercontent.com/<lock repository>/; A2A_SPEC_TIMEOUT_MS bounds
 *      each download (default 30 s).
 * A malformed variable is a SyncError naming the variable and its value.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { defaultTimeoutMs } from "./download.js";
import { SyncError } from "./sync-error.js";
import { defaultBaseUrl, type Lock, type SpecSource } from "./sync-protos.js";

export function sourceFromEnv(lock: Lock, env: NodeJS.ProcessEnv, cwd: string, localDir?: string): SpecSource {
  const dir = env["A2A_SPEC_DIR"];
  if (dir) return { kind: "dir", dir: resolve(cwd, dir) };
  if (localDir !== undefined && existsSync(resolve(cwd, localDir))) return { kind: "dir", dir: resolve(cwd, localDir) };
  const baseUrl = env["A2A_SPEC_BASE_URL"] || defaultBaseUrl(lock);
  let protocol: string;
  try {
    protocol = new URL(baseUrl).protocol;
  } catch {
    protocol = "";
  }
  if (protocol !== "https:" && protocol !== "http:") {
    throw new SyncError(`A2A_SPEC_BASE_URL: "${baseUrl}" is not an http(s) URL`);
  }
  const timeout = env["A2A_SPEC_TIMEOUT_MS"];
  const timeoutMs = timeout ? Number(timeout) : defaultTimeoutMs;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new SyncError(`A2A_SPEC_TIMEOUT_MS: "${timeout}" is not a positive whole number of milliseconds`);
  }
  return { kind: "download", baseUrl, timeoutMs };
}
