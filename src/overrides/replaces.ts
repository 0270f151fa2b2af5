/**
 * `replaces: <entry id>`: an entry of a user override file that takes the
 * place of an entry of an earlier file of the same package (a shipped file,
 * which always comes first, or a user file given before it with overrides=).
 * The replaced entry is dropped; the new one is applied where it stood, so the
 * order of routes and of the overrides table stays as it was. Chains work (an
 * entry may replace one that replaces another). An id that no earlier file of
 * the package has, two entries that replace the same one, and an id that two
 * earlier files share are errors naming the file, line and entry.
 */
import type { Problems } from "../generation-error.js";
import type { OverrideEntry, OverrideFile } from "./load-overrides.js";

export interface PlannedEntry {
  readonly entry: OverrideEntry;
  readonly shipped: boolean;
  /** The entry this one takes the place of, if it has `replaces:`. */
  readonly replaced: { readonly entry: OverrideEntry; readonly shipped: boolean } | undefined;
}

interface Candidate {
  readonly entry: OverrideEntry;
  readonly shipped: boolean;
  readonly fileIndex: number;
  readonly index: number;
}

export function place(e: OverrideEntry): string {
  return `${e.file}:${e.line}: entry "${e.id}"`;
}

/**
 * The entries of the files of one package, in the order to apply them, with replaced entries dropped.
 * @param leftOut shipped files of the package that default_overrides=false leaves out (for the message only)
 * @param failed  overrides= files that did not load (for the message only: the id may be in one of them)
 */
export function planEntries(
  files: readonly OverrideFile[],
  leftOut: readonly OverrideFile[],
  problems: Problems,
  failed: readonly string[] = [],
): PlannedEntry[] {
  let index = 0;
  const all: Candidate[] = files.flatMap((file, fileIndex) =>
    file.entries.map((entry) => ({ entry, shipped: file.shipped === true, fileIndex, index: index++ })),
  );
  const replacedBy = new Map<OverrideEntry, Candidate>();
  const replacing = new Map<OverrideEntry, Candidate>();
  const dropped = new Set<OverrideEntry>();
  const slot = new Map<OverrideEntry, number>(all.map((c) => [c.entry, c.index]));
  for (const c of all) {
    if (c.entry.replaces === undefined) continue;
    const target = findReplaced(c, all, { files, leftOut, failed }, problems);
    const earlier = target && replacedBy.get(target.entry);
    if (!target || earlier) {
      if (target && earlier) {
        problems.add(`${place(c.entry)}: conflicts with ${place(earlier.entry)}: both replace ${place(target.entry)}`);
      }
      dropped.add(c.entry);
      continue;
    }
    replacedBy.set(target.entry, c);
    replacing.set(c.entry, target);
    slot.set(c.entry, slot.get(target.entry)!);
  }
  return all
    .filter((c) => !replacedBy.has(c.entry) && !dropped.has(c.entry))
    .sort((a, b) => slot.get(a.entry)! - slot.get(b.entry)!)
    .map((c) => {
      const r = replacing.get(c.entry);
      return { entry: c.entry, shipped: c.shipped, replaced: r && { entry: r.entry, shipped: r.shipped } };
    });
}

/** The entry that `c` replaces: the one of an earlier file of the package with that id. */
function findReplaced(
  c: Candidate,
  all: readonly Candidate[],
  {
    files,
    leftOut,
    failed,
  }: { files: readonly OverrideFile[]; leftOut: readonly OverrideFile[]; failed: readonly string[] },
  problems: Problems,
): Candidate | undefined {
  const id = c.entry.replaces!;
  const found = all.filter((o) => o.entry.id === id && o.fileIndex < c.fileIndex);
  if (found.length === 1) return found[0];
  const at = `${place(c.entry)}: replaces "${id}"`;
  if (found.length > 1) {
    problems.add(`${at}, but ${found.map((o) => place(o.entry)).join(" and ")} both have that id; rename one of them`);
    return undefined;
  }
  const sameFile = all.find((o) => o.entry.id === id && o.fileIndex === c.fileIndex && o !== c);
  const later = all.find((o) => o.entry.id === id && o.fileIndex > c.fileIndex);
  const unused = leftOut.find((f) => f.entries.some((e) => e.id === id));
  const pkg = files[c.fileIndex]!.package;
  const notLoaded = failed.length > 0 ? `; or in ${failed.join(", ")}, which did not load` : "";
  if (sameFile) problems.add(`${at}, an entry of the same file (line ${sameFile.entry.line}); edit that entry instead`);
  else if (later) problems.add(`${at}, but ${later.entry.file} comes after this file; give it first with overrides=`);
  else if (unused) problems.add(`${at} of ${unused.file}, which default_overrides=false leaves out${notLoaded}`);
  else {
    const earlier = files.slice(0, c.fileIndex).map((f) => f.file);
    problems.add(
      `${at}, but no override file for package ${pkg} before it has an entry "${id}"` +
        ` (${earlier.length > 0 ? `files: ${earlier.join(", ")}` : "it is the first file for the package"})` +
        notLoaded,
    );
  }
  return undefined;
}
