/**
 * protoc-gen-a2a: CodeGeneratorRequest → route tables and Markdown docs.
 *
 *   override files → services that get output (src/overrides/select-services)
 *   descriptors → ApiModel (src/model) → overrides applied (src/overrides)
 *     → compat plans (src/compat), route tables (src/model/route-table)
 *     → ResolvedApi, every default applied once (src/model/resolve-api) → files (src/emit)
 *     → the response, each module's import block laid out (src/emit/print/import-layout)
 *
 * Nothing is written unless the whole run succeeds: every problem is
 * collected and thrown before the first file is generated.
 */
import type { Plugin } from "@bufbuild/protoplugin";
import { readFileSync } from "node:fs";
import { isAbsolute, normalize, resolve, sep } from "node:path";
import { create, protoInt64, type DescFile } from "@bufbuild/protobuf";
import { CodeGeneratorResponse_Feature, CodeGeneratorResponseSchema, Edition } from "@bufbuild/protobuf/wkt";
import { internals } from "./host/protoplugin-internals.js";
import { checkStandardOptions, parseA2aOptions, type A2aOptions } from "./options.js";
import { buildModels, findExtensions } from "./model/build-model.js";
import { Problems } from "./generation-error.js";
import {
  loadOverrideFile,
  maxOverrideFileBytes,
  shippedOverrides,
  type OverrideFile,
} from "./overrides/load-overrides.js";
import { applyOverrides } from "./overrides/apply-overrides.js";
import { buildRouteTable, type RouteTable } from "./model/route-table.js";
import { writeOutputs } from "./emit/outputs.js";
import { layOutImports } from "./emit/print/import-layout.js";
import { outputFiles, type OutputText } from "./host/output-files.js";
import { buildCompatPlan, type CompatPlan } from "./compat/compat-plan.js";
import { buildConversionIr, type ConversionIr } from "./compat/conversion-ir.js";
import { buildJsonIr, type JsonIr } from "./compat/json-ir.js";
import { type DialectIr, dialectRules } from "./compat/dialect-ir.js";
import { nestedTypes } from "@bufbuild/protobuf/reflect";
import { checkUnpairedOperations, linkVersions } from "./compat/version-links.js";
import { noProtocolVersionProblem, selectServices, userFilesInUse } from "./overrides/select-services.js";
import type { ApiModel } from "./model/model-types.js";
import { resolveApis } from "./model/resolve-api.js";
import { versionPartnerNotes } from "./overrides/version-partner-note.js";
import { describeRefusal, readBounded } from "./read-bounded.js";
import { packageRoot } from "./package-paths.js";

const { version } = JSON.parse(readFileSync(new URL("package.json", packageRoot), "utf8")) as { version: string };

export const protocGenA2a: Plugin = {
  name: "protoc-gen-a2a",
  version: `v${version}`,
  run(request) {
    // Like the DESIGN says, the default target is ts (protoplugin's own default is js+dts).
    const parameter = /(^|,)target=/.test(request.parameter)
      ? request.parameter
      : ["target=ts", request.parameter].filter(Boolean).join(",");
    checkStandardOptions(parameter);
    const parsed = internals.parseParameter(parameter, parseA2aOptions);
    const schema = internals.createSchema(
      request,
      parsed,
      "protoc-gen-a2a",
      parsed.parsed.elidePluginVersion ? undefined : `v${version}`,
      Edition.EDITION_PROTO2,
      Edition.EDITION_2023,
    );
    const options = parsed.parsed as A2aOptions & typeof parsed.parsed;
    const problems = new Problems();

    // Which services get output depends on the override files: those whose package a file covers (or services=).
    const shipped = shippedOverrides().map((f) => ({ ...f, shipped: true }));
    const failed: string[] = [];
    const user = loadUserOverrides(options, problems, failed);
    const loadProblems = problems.size;
    const selection = selectServices(schema.files, options, shipped, user, problems);
    // With a file that did not load, the coverage is not known: say nothing about skipped services then.
    if (problems.size === 0) {
      const applying = [...(options.defaultOverrides ? shipped : []), ...user];
      const partners = versionPartnerNotes(schema.files, selection.selected, applying, options);
      for (const note of [...selection.notes, ...partners]) process.stderr.write(`protoc-gen-a2a: ${note}\n`);
    }
    const ext = findExtensions(schema.allFiles);
    const models = buildModels(schema.files, schema.allFiles, ext, problems, (s) => selection.selected.has(s));
    const inUse = userFilesInUse(user, models, selection, problems);
    const overrideFiles = [...(options.defaultOverrides ? shipped : []), ...inUse];
    // A file that did not load leaves the others to apply, so that their entries' problems come in the same run
    // (an entry whose replaces: finds no id says it may be in a file that did not load); a problem of the models
    // stops here.
    if (problems.size > loadProblems) problems.throwIfAny();
    applyOverrides(models, overrideFiles, problems, options.defaultOverrides ? [] : shipped, failed);
    problems.throwIfAny();
    const { plans, ir } = planConversions(models, schema.allFiles, problems);
    const tables = new Map<ApiModel, RouteTable>(models.map((m) => [m, buildRouteTable(m, problems)]));
    const apis = resolveApis(models, tables, problems, (m) => noProtocolVersionProblem(m, options, shipped, user));
    checkUnpairedOperations(linkVersions(plans, models), problems);
    problems.throwIfAny();

    const outputs = outputFiles(schema);
    writeOutputs(outputs, options, apis, plans, linkVersions(plans, apis), ir);
    return createResponse(outputs.files());
  },
};

/**
 * The files given with overrides=, in option order; those that do not load are named in `failed`. (The shipped
 * ones were parsed and checked at build time.)
 */
function loadUserOverrides(options: A2aOptions, problems: Problems, failed: string[]): OverrideFile[] {
  return options.overrides.flatMap((given) => {
    const path = resolve(given);
    const shown = displayPath(given);
    const text = readOverrideText(path, shown, problems);
    const file = text === undefined ? undefined : loadOverrideFile(shown, problems, text);
    if (!file) failed.push(shown);
    return file ? [file] : [];
  });
}

/**
 * The text of an override file, or undefined after a problem: it must be a regular file (not a device, FIFO
 * or folder, which could block or never end) of at most maxOverrideFileBytes, checked before it is opened,
 * and read no further than that (a procfs file reports a size of 0 whatever it holds).
 */
function readOverrideText(path: string, shown: string, problems: Problems): string | undefined {
  const read = readBounded(path, maxOverrideFileBytes);
  if (read.ok) return read.data.toString("utf8");
  const rule: Record<typeof read.kind, string> = {
    io: "",
    type: "; overrides= takes the path of a YAML file",
    size: `; an override file may have at most ${maxOverrideFileBytes} bytes`,
  };
  const found =
    read.kind === "io" ? `cannot read override file: ${read.code}` : describeRefusal(read, maxOverrideFileBytes);
  problems.add(`${shown}: ${found}${rule[read.kind]}`);
  return undefined;
}

/**
 * An override file's path as messages and docs show it, so output does not depend on where the checkout is: a
 * relative path as given (../ included, as a monorepo's shared file is), an absolute one relative to the plugin
 * package or the working directory when under either, else as it is.
 */
function displayPath(given: string): string {
  if (!isAbsolute(given)) return normalize(given).split(sep).join("/");
  const p = resolve(given);
  const pkg = resolve(packageRoot.pathname);
  if (p.startsWith(pkg + "/")) return p.slice(pkg.length + 1);
  const cwd = process.cwd();
  return p.startsWith(cwd + "/") ? p.slice(cwd.length + 1) : p;
}

/** The response with every file; a module's long import lines laid out on several (emit/print/import-layout). */
function createResponse(files: readonly OutputText[]) {
  return create(CodeGeneratorResponseSchema, {
    supportedFeatures: protoInt64.parse(
      CodeGeneratorResponse_Feature.PROTO3_OPTIONAL | CodeGeneratorResponse_Feature.SUPPORTS_EDITIONS,
    ),
    minimumEdition: Edition.EDITION_PROTO2,
    maximumEdition: Edition.EDITION_2023,
    file: files.map((f) => {
      const content = /\.[jt]s$/.test(f.name) ? layOutImports(f.content) : f.content;
      return { name: f.name, content: f.head !== undefined ? f.head + "\n" + content : content };
    }),
  });
}

/**
 * The cross-version plans of the models, and what the conversions are printed from: each plan's IR and the
 * a2a.json dialect's rules of each package that has one. A plan with gaps has been reported and gets no IR.
 */
function planConversions(models: readonly ApiModel[], files: readonly DescFile[], problems: Problems) {
  const dialects = new Map<string, DialectIr>();
  for (const m of models) {
    const file = files.find((f) => f.proto.name === m.protoFile);
    if (!m.jsonrpcDialect || !file) continue;
    const messages = [...nestedTypes(file)].filter((t) => t.kind === "message");
    dialects.set(m.package, dialectRules(m.jsonrpcDialect, messages, problems));
  }
  const conversions = new Map<CompatPlan, ConversionIr>();
  const json = new Map<CompatPlan, JsonIr>();
  const plans = models.flatMap((m) => {
    const before = problems.size;
    const plan = buildCompatPlan(m, problems);
    if (plan && problems.size === before) {
      const ir = buildConversionIr(plan, files, problems);
      conversions.set(plan, ir);
      const rules = dialects.get(plan.older);
      if (rules) json.set(plan, buildJsonIr(ir, rules, problems));
    }
    return plan ?? [];
  });
  return { plans, ir: { conversions, dialects, json } };
}
