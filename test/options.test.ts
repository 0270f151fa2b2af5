/**
 * Every plugin option refuses a bad value by listing what it takes (issue 24): protoplugin's standard
 * options (target, import_extension, js_import_style, the booleans, rewrite_imports) as well as the plugin's
 * own. bootstrap_wkt and map_imports are refused whatever their value: this plugin's output imports no
 * well-known type, and map_imports would move only the imports protoplugin resolves from descriptors, not
 * those of the *_pb modules the stubs and the cross-version module name; rewrite_imports moves every one,
 * which is checked on both versions' output. Each run is in-process.
 */
import { Script } from "node:vm";
import { beforeAll, describe, expect, it } from "vitest";
import type { FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { buildImage, request, runPlugin } from "./helpers/in-process.js";

let image: FileDescriptorProto[];
beforeAll(() => {
  image = buildImage(["v1.0.1"]);
});

const generate = (...opt: string[]) => runPlugin(request(image, ["v1.0.1/a2a.proto"], opt));

describe("a bad option value lists the valid ones", () => {
  const cases: [option: string, says: string][] = [
    ["target=tsx", 'option target=tsx: unknown target "tsx"; valid targets are ts, js, dts (join with +)'],
    ["target=ts+mjs", 'option target=ts+mjs: unknown target "mjs"; valid targets are ts, js, dts (join with +)'],
    ["import_extension=cjs", "option import_extension=cjs: use none, js or ts"],
    ["js_import_style=cjs", "option js_import_style=cjs: use module or legacy_commonjs"],
    ["keep_empty_files=maybe", "option keep_empty_files=maybe: use true or false"],
    ["ts_nocheck=yes", "option ts_nocheck=yes: use true or false"],
    ["elide_plugin_version=on", "option elide_plugin_version=on: use true or false"],
    [
      "rewrite_imports=foo",
      "option rewrite_imports=foo: use PATTERN:TARGET (a glob of import paths, a colon, the path that replaces them)",
    ],
    ["emit=routes+pdf", 'option emit=routes+pdf: unknown output "pdf"; valid outputs are routes, docs, stubs'],
    ["openapi_format=xml", "option openapi_format=xml: use yaml or json"],
    ["default_overrides=maybe", "option default_overrides=maybe: use true or false"],
    ["services=a..b", 'option services=a..b: "a..b" is not a full service name; name services as PKG.Service'],
    ["colour=blue", 'unknown option "colour"; valid options are emit, openapi_format, overrides, default_overrides'],
  ];

  it.each(cases)("%s", (option, says) => {
    const r = generate(option);
    expect(r.error?.message).toContain(says);
    expect(r.files.size).toBe(0);
  });

  it.each([
    ["emit=routes", "emit=docs"],
    ["openapi_format=yaml", "openapi_format=json"],
    ["target=ts", "target=js"],
    ["default_overrides=true", "default_overrides=false"],
  ])("a single-valued option given twice, %s then %s, is refused naming both", (first, second) => {
    const r = generate(first, second);
    expect(r.error?.message).toContain(
      `option ${second}: ${first.split("=")[0]} is given twice (first ${first}); give it once`,
    );
    expect(r.files.size).toBe(0);
  });

  it("the same value twice is taken, and repeatable options add up", () => {
    expect(generate("emit=routes", "emit=routes").error).toBeUndefined();
    const both = generate("services=lf.a2a.v1.A2AService", "services=lf.a2a.v1.A2AService", "emit=routes");
    expect(both.error).toBeUndefined();
  });

  it("the unknown-option list names every option taken, and neither bootstrap_wkt nor map_imports", () => {
    const message = generate("colour=blue").error!.message;
    const listed = message.slice(message.indexOf("valid options are ") + 18).split(", ");
    expect(listed).toEqual([
      "emit",
      "openapi_format",
      "overrides",
      "default_overrides",
      "services",
      "target",
      "import_extension",
      "js_import_style",
      "keep_empty_files",
      "ts_nocheck",
      "elide_plugin_version",
      "rewrite_imports",
    ]);
  });
});

describe("options this plugin does not take", () => {
  it.each(["true", "false"])("bootstrap_wkt=%s is refused with the reason", (value) => {
    const r = generate(`bootstrap_wkt=${value}`);
    expect(r.error?.message).toBe(
      `option bootstrap_wkt=${value}: not taken by protoc-gen-a2a: it makes protoc-gen-es write the well-known ` +
        "types for @bufbuild/protobuf itself, and this plugin's output imports no well-known type; remove it",
    );
  });

  it("map_imports is refused, pointing to rewrite_imports", () => {
    const r = generate("map_imports=v1.0.1/*.proto:@acme/a2a-pb");
    expect(r.error?.message).toBe(
      "option map_imports=v1.0.1/*.proto:@acme/a2a-pb: not taken by protoc-gen-a2a: it would move only some of " +
        "the imports of the *_pb modules; use rewrite_imports=./PATH/*_pb.js:TARGET, which moves them all",
    );
  });
});

describe("valid standard options", () => {
  it("rewrite_imports moves every import of the *_pb modules, in the stubs and the cross-version module", () => {
    const both = buildImage(["v0.3.0", "v1.0.1"]);
    const files = ["v0.3.0/a2a.proto", "v1.0.1/a2a.proto"];
    const opt = ["emit=stubs", "import_extension=js", "rewrite_imports=./v*/*_pb.js:@acme/a2a-pb"];
    const r = runPlugin(request(both, files, opt));
    expect(r.error).toBeUndefined();
    const imports = [...r.files.values()].flatMap((text) => [...text.matchAll(/^import .* from "([^"]+)";$/gm)]);
    const pb = imports.map((m) => m[1]!).filter((from) => from.includes("_pb"));
    expect(new Set(pb)).toEqual(new Set(["@acme/a2a-pb/v0.3.0/a2a_pb.js", "@acme/a2a-pb/v1.0.1/a2a_pb.js"]));
    expect(r.files.get("a2a_compat.ts")).toBeDefined();
  });

  it("js_import_style=legacy_commonjs writes every module as a script CommonJS can load, compat included", () => {
    const both = buildImage(["v0.3.0", "v1.0.1"]);
    const files = ["v0.3.0/a2a.proto", "v1.0.1/a2a.proto"];
    const r = runPlugin(request(both, files, ["target=js", "js_import_style=legacy_commonjs"]));
    expect(r.error).toBeUndefined();
    const modules = [...r.files].filter(([name]) => name.endsWith(".js"));
    expect(modules.map(([name]) => name)).toContain("a2a_compat.js");
    for (const [name, text] of modules) expect(() => new Script(text, { filename: name }), name).not.toThrow();
    expect(r.files.get("a2a_compat.js")).toContain("exports.a2aCompat = ");
  });

  it("js_import_style=legacy_commonjs requires the modules the a2a.json modules import whole", () => {
    const both = buildImage(["v0.3.0", "v1.0.1"]);
    const files = ["v0.3.0/a2a.proto", "v1.0.1/a2a.proto"];
    const r = runPlugin(request(both, files, ["emit=stubs", "target=js", "js_import_style=legacy_commonjs"]));
    expect(r.error).toBeUndefined();
    for (const name of ["v0.3.0/a2a_jsonrpc_codec.js", "a2a_compat_jsonrpc.js"]) {
      const text = r.files.get(name)!;
      expect(text, name).toContain('const rt = require("@protoc-gen-a2a/runtime/compat-json");');
      expect(text, name).not.toMatch(/^import /m);
      // The messages' types are TypeScript only.
      expect(text, name).not.toContain("_pb");
    }
  });

  it("take the values their messages list", () => {
    for (const opt of [
      "target=ts+js+dts",
      "import_extension=js",
      "import_extension=none",
      "js_import_style=legacy_commonjs",
      "keep_empty_files=1",
      "ts_nocheck=false",
      "elide_plugin_version=true",
      "rewrite_imports=./x/*.js:@x/y",
    ]) {
      expect(generate("emit=routes", opt).error, opt).toBeUndefined();
    }
  });
});
