/**
 * Which services of the request get A2A output, and what each must have.
 *
 * Without `services=`, a service gets output when an override file covers its
 * proto package: a file shipped with the plugin (applied or not, see
 * default_overrides) or one given with overrides=. Every other service is
 * skipped with one line on stderr: a consumer's own, non-A2A service gets no
 * routes, stubs or docs. With `services=`, exactly the services named there
 * get output; a name that no file to generate declares is an error.
 *
 * A package the shipped files cover is A2A's: they describe its A2A service (the one with the RPCs their
 * `operations.<rpc>` entries name). Another service declared in it (say a user's, added to a copy of a2a.proto)
 * would meet those entries with none of its RPCs; while the shipped files apply, it is one problem saying to
 * give it a package of its own or to leave it out with services=, not a problem per shipped entry.
 *
 * A service that gets output needs a protocol version (api.protocolVersion)
 * from an override file; without one, generation fails (src/model/resolve-api.ts, with the problem
 * noProtocolVersionProblem words).
 */
import type { DescFile } from "@bufbuild/protobuf";
import type { A2aOptions } from "../options.js";
import type { ApiModel } from "../model/model-types.js";
import type { Problems } from "../generation-error.js";
import type { OverrideFile } from "./load-overrides.js";

export interface ServiceSelection {
  /** Full names of the services that get output. */
  readonly selected: ReadonlySet<string>;
  /** Packages that declare a service in the files to generate, selected or not. */
  readonly requestPackages: ReadonlySet<string>;
  /** One informational line per skipped service (without the plugin's name). */
  readonly notes: readonly string[];
}

/**
 * @param files    the files to generate
 * @param shipped  every override file shipped with the plugin, whether default_overrides applies it or not
 * @param user     the files given with overrides=
 */
export function selectServices(
  files: readonly DescFile[],
  options: Pick<A2aOptions, "services" | "defaultOverrides">,
  shipped: readonly OverrideFile[],
  user: readonly OverrideFile[],
  problems: Problems,
): ServiceSelection {
  const services = files.flatMap((f) =>
    f.services.map((s) => ({
      name: s.typeName,
      file: f.proto.name,
      pkg: f.proto.package,
      rpcs: s.methods.map((m) => m.name),
    })),
  );
  const requestPackages = new Set(services.map((s) => s.pkg));
  if (options.services.length > 0) {
    const known = new Set(services.map((s) => s.name));
    for (const name of options.services) {
      if (known.has(name)) continue;
      problems.add(
        `option services=${name}: no service ${name} in the files to generate ` +
          `(services: ${[...known].join(", ") || "none"})`,
      );
    }
    return { selected: new Set(options.services.filter((n) => known.has(n))), requestPackages, notes: [] };
  }
  const covered = new Set([...shipped, ...user].map((f) => f.package));
  const strangers = options.defaultOverrides ? servicesBesideA2a(services, shipped) : new Map<string, string>();
  for (const [stranger, a2a] of strangers) {
    const s = services.find((x) => x.name === stranger)!;
    problems.add(
      `${s.file}: service ${s.name} is in package ${s.pkg}, whose shipped override files describe ${a2a}: ` +
        `give it a package of its own (with an overrides= file), or leave it out with services=${a2a}`,
    );
  }
  const notes = services
    .filter((s) => !covered.has(s.pkg))
    .map((s) =>
      s.pkg === ""
        ? `skipping ${s.name} (${s.file}): override files are per package and its file has none`
        : `skipping ${s.name} (${s.file}): no override file covers package ${s.pkg}; add one with overrides=PATH`,
    );
  const selected = services.filter((s) => covered.has(s.pkg) && !strangers.has(s.name)).map((s) => s.name);
  return { selected: new Set(selected), requestPackages, notes };
}

/**
 * The services of a shipped package that have none of the RPCs its shipped entries name, while another service
 * of that package has some: each one's name → the full names of those A2A services.
 */
function servicesBesideA2a(
  services: readonly { name: string; pkg: string; rpcs: readonly string[] }[],
  shipped: readonly OverrideFile[],
): Map<string, string> {
  const out = new Map<string, string>();
  for (const pkg of new Set(shipped.map((f) => f.package))) {
    const named = new Set(
      shipped
        .filter((f) => f.package === pkg)
        .flatMap((f) => f.entries.map((e) => /^operations\.([^.]+)\./.exec(e.target)?.[1]))
        .filter((n) => n !== undefined),
    );
    const here = services.filter((s) => s.pkg === pkg);
    const a2a = here.filter((s) => s.rpcs.some((r) => named.has(r))).map((s) => s.name);
    if (a2a.length === 0) continue;
    for (const s of here) if (!a2a.includes(s.name)) out.set(s.name, a2a.join(", "));
  }
  return out;
}

/**
 * The override files given with overrides= that apply: those of a package with a selected service. A file for a
 * package whose services are all left out by services= is dropped; one for a package with no service in the
 * files to generate is an error.
 */
export function userFilesInUse(
  user: readonly OverrideFile[],
  models: readonly ApiModel[],
  selection: ServiceSelection,
  problems: Problems,
): OverrideFile[] {
  return user.filter((file) => {
    if (models.some((m) => m.package === file.package)) return true;
    if (!selection.requestPackages.has(file.package)) {
      problems.add(
        `${file.file}: package "${file.package}" has no service in this request ` +
          `(packages: ${[...selection.requestPackages].join(", ") || "none"})`,
      );
    }
    return false;
  });
}

/**
 * Every service that gets output needs api.protocolVersion from an override file (the stubs, the agent card and
 * the version negotiation carry it): the problem for a service without one, with the options to change.
 */
export function noProtocolVersionProblem(
  m: Pick<ApiModel, "package" | "protoFile" | "service">,
  options: Pick<A2aOptions, "defaultOverrides" | "services">,
  shipped: readonly OverrideFile[],
  user: readonly OverrideFile[],
): string {
  const given = user.filter((f) => f.package === m.package).map((f) => f.file);
  const withVersion = shipped
    .filter((f) => f.package === m.package && f.entries.some((e) => e.target === "api.protocolVersion"))
    .map((f) => f.file);
  const fromUser =
    given.length > 0 ? `the overrides= files for it (${given.join(", ")}) have none` : "no overrides= file is for it";
  const fix = "add an api.protocolVersion entry with overrides=PATH";
  let why: string;
  if (withVersion.length > 0 && !options.defaultOverrides) {
    why =
      `default_overrides=false leaves out ${withVersion.join(", ")} and ${fromUser}; ` +
      `drop default_overrides=false, or ${fix}`;
  } else if (withVersion.length > 0) {
    why =
      `the api.protocolVersion entry of ${withVersion.join(", ")} is replaced (replaces:) by an entry with ` +
      "another target; give the replacing entry the target api.protocolVersion";
  } else {
    const named = options.services.includes(m.service.fullName);
    why = `${fromUser}; ${fix}${named ? `, or leave ${m.service.fullName} out of services=` : ""}`;
  }
  return (
    `${m.service.fullName} (${m.protoFile}): no override entry sets api.protocolVersion for package ${m.package}, ` +
    `so it cannot get A2A output: ${why}`
  );
}
