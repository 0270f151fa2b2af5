/**
 * A note for a request that holds one A2A version of a cross-version pair without the other.
 *
 * buf runs a plugin once per directory unless `strategy: all` is set, so with the two versions in two
 * directories each request sees one version, and the cross-version outputs (a2a_compat.ts and its modules
 * with emit=stubs, a2a_compat.md and a2a_versions.md with emit=docs) are silently not written.
 *
 * Rule: the pairs are those of the override files that apply: the shipped ones unless default_overrides=false,
 * and the overrides= files (the newer package's compat.unpaired entry names the older one: lf.a2a.v1 ↔ a2a.v1,
 * or a fork's two renamed packages). When the files to generate declare services of exactly one package of a
 * pair, a service of that package gets output (it is selected: select-services.ts), no other pair gives it a
 * partner in the request, and the outputs include stubs or docs, one line says what is not written and how to
 * get it. (Both packages there and services= choosing one is the user's choice, not buf's: no note.) It is a
 * note, never a failure: generating one version is legitimate.
 */
import type { DescFile } from "@bufbuild/protobuf";
import type { A2aOptions } from "../options.js";
import type { OverrideFile } from "./load-overrides.js";

/**
 * The lines to write on stderr (without the plugin's name); empty when both or neither version is here.
 * @param files     the files to generate
 * @param selected  full names of the services that get output
 */
export function versionPartnerNotes(
  files: readonly DescFile[],
  selected: ReadonlySet<string>,
  applying: readonly OverrideFile[],
  options: Pick<A2aOptions, "emit">,
): string[] {
  const withServices = files.filter((f) => f.services.length > 0);
  const declared = new Set(withServices.map((f) => f.proto.package));
  const output = new Set(
    withServices.filter((f) => f.services.some((s) => selected.has(s.typeName))).map((f) => f.proto.package),
  );
  const outputs = [
    ...(options.emit.has("stubs") ? ["a2a_compat.ts"] : []),
    ...(options.emit.has("docs") ? ["a2a_compat.md", "a2a_versions.md"] : []),
  ];
  if (outputs.length === 0) return [];
  const pairs = pairsOf(applying);
  const paired = (pkg: string) => pairs.some((pair) => pair.includes(pkg) && pair.every((p) => declared.has(p)));
  const notes = pairs.flatMap(([newer, older]) => {
    const here = [newer, older].filter((p) => declared.has(p));
    if (here.length !== 1 || !output.has(here[0]!) || paired(here[0]!)) return [];
    const missing = here[0] === newer ? older : newer;
    return [
      `${here[0]} is in this request without ${missing}, so ${outputs.join(", ")} ` +
        "(the cross-version outputs) are not written: they need both A2A versions in one request; " +
        "with buf, set `strategy: all` on this plugin in buf.gen.yaml",
    ];
  });
  return [...new Set(notes)];
}

/** [newer, older] for each compat.unpaired entry that no later entry of its package replaces, in file order. */
function pairsOf(files: readonly OverrideFile[]): [string, string][] {
  const replaced = new Set(
    files.flatMap((f) => f.entries.flatMap((e) => (e.replaces ? [`${f.package}:${e.replaces}`] : []))),
  );
  return files.flatMap((f) =>
    f.entries.flatMap((e) => {
      const other = (e.value as { otherPackage?: unknown } | null)?.otherPackage;
      return e.target === "compat.unpaired" && typeof other === "string" && !replaced.has(`${f.package}:${e.id}`)
        ? [[f.package, other] as [string, string]]
        : [];
    }),
  );
}
