/**
 * Makes a directory and its missing parents, as `mkdir -p` does, for paths the user gives (sync's folder, docs'
 * --out, PROTOC_GEN_A2A_CODE_CACHE).
 *
 * Rule: walk up from the path to the first ancestor that exists, then make each missing directory below it in
 * turn, one mkdir each. The first refusal stops it and is returned (the directory and the code) for the caller
 * to word (describeMakeRefusal); undefined when all is made. Something in the way that is not a directory (a file,
 * a dangling symlink) is refused with ENOTDIR or EEXIST, naming it; a directory that appeared meanwhile
 * (another process) is taken as made. Node's own `mkdirSync(path, { recursive: true })` is not used: under
 * /proc, where mkdir answers ENOENT for a parent that exists, it retries forever, so `--out /proc/self/x` hung
 * the command instead of failing it.
 */
import { mkdirSync, type Stats, statSync } from "node:fs";
import { dirname } from "node:path";

export interface MakeDirectoryRefusal {
  /** The directory the system refused to make, or what stands in its way. */
  readonly path: string;
  /** Its error code: ENOENT, EACCES, ENOTDIR, EEXIST, ... */
  readonly code: string;
}

export function makeDirectory(dir: string): MakeDirectoryRefusal | undefined {
  const missing: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    const found = lookUp(at);
    if ("code" in found) return { path: at, code: found.code };
    if (found.stats?.isDirectory()) break;
    if (found.stats) return { path: at, code: "ENOTDIR" };
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const path of missing) {
    try {
      mkdirSync(path);
    } catch (error) {
      const code = codeOf(error);
      const made = code === "EEXIST" && (lookUp(path) as { stats?: Stats }).stats?.isDirectory() === true;
      if (!made) return { path, code };
    }
  }
  return undefined;
}

/** One line for a refusal: the path, and what the system said. */
export function describeMakeRefusal(refused: MakeDirectoryRefusal): string {
  return `${refused.path}: cannot make the folder (${refused.code})`;
}

/**
 * What is at `path`: its stats, none (nothing there, or a path through a file: ENOTDIR, so that the walk goes on
 * up to the file), or the code of another refusal (EACCES, ELOOP).
 */
function lookUp(path: string): { readonly stats: Stats | undefined } | { readonly code: string } {
  try {
    return { stats: statSync(path, { throwIfNoEntry: false }) };
  } catch (error) {
    const code = codeOf(error);
    return code === "ENOTDIR" ? { stats: undefined } : { code };
  }
}

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? "unknown error";
