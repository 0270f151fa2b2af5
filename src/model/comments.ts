/**
 * The leading comment of a descriptor as plain text, for descriptions in the generated documents.
 *
 * Rule: the comment lines as the proto writes them, one leading space removed from each, surrounding blank
 * lines dropped; lines that address tools rather than readers (`protolint:…`, `buf:lint:…`, `--8<--`
 * snippet markers) are left out. A descriptor without source info or comment has none (undefined).
 */
import type { AnyDesc, DescFile } from "@bufbuild/protobuf";
// protoplugin's getComments, loaded without the package index (which loads the TypeScript compiler).
import { internals } from "../host/protoplugin-internals.js";

const toolLine = /^\s*(protolint:|buf:lint:|--8<--)/;

export function commentOf(desc: Exclude<AnyDesc, DescFile>): string | undefined {
  const leading = internals.getComments(desc).leading;
  if (leading === undefined) return undefined;
  const text = leading
    .split("\n")
    .map((l) => l.replace(/^ /, "").trimEnd())
    .filter((l) => !toolLine.test(l))
    .join("\n")
    .trim();
  return text === "" ? undefined : text;
}
