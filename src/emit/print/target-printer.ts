/**
 * One printer per target, in the manner of protoc-gen-es's generateTs, generateJs and generateDts: an emitter
 * says what a module declares, the printer of the module's target writes it. Each target is one object
 * below; no emitter compares targets.
 *
 *   declaration  ts                                js                          dts
 *   constant     export const N: T = v;            export const N = v;         export declare const N: T;
 *     asConst    export const N = v as const satisfies T;
 *   function     export function N(p: T): R {…}    export function N(p) {…}    export declare function N(p: T): R;
 *   types        printed                           nothing                     printed
 *   module       values(typed)                     values(untyped)             declarations()
 *   value import import { N }                      import { N }                import type { N }
 *
 * A parameter whose name ends in "?" is optional; in JavaScript it is printed without the mark.
 */
import type { GeneratedFile, ImportSymbol, Printable, Target } from "@bufbuild/protoplugin";
import { params as signature } from "./code-layout.js";

/** A function's parameter: its name (`options?` when optional) and type. */
export type Param = readonly [name: string, type: Printable];

export interface ConstantDecl {
  readonly name: string;
  readonly type: Printable;
  readonly value: Printable;
  /** In TypeScript, `value as const satisfies type` rather than `: type`. */
  readonly asConst?: boolean;
}

export interface FunctionDecl {
  readonly name: string;
  /** Printed before the parameters in the typed targets: `<T extends U>`. */
  readonly generics?: string;
  readonly params: readonly Param[];
  readonly returns: Printable;
  /** The body's lines, each printed as it is (indent included); not printed in a d.ts. */
  readonly body: readonly Printable[];
}

/** What a module prints: its declarations (d.ts), or its values, with types or without. */
export interface ModuleParts {
  declarations(): void;
  values(typed: boolean): void;
}

export interface TargetPrinter {
  readonly target: Target;
  /** The module's declarations in a d.ts, else its values (typed in ts). */
  module(parts: ModuleParts): void;
  constant(f: GeneratedFile, decl: ConstantDecl): void;
  function(f: GeneratedFile, decl: FunctionDecl): void;
  /** Prints type-only statements (type aliases, `export type { … }`): nothing in JavaScript. */
  types(print: () => void): void;
  /** A value a declaration names: in a d.ts only its type is needed. */
  importValue(f: GeneratedFile, name: string, from: string): ImportSymbol;
}

const typedSignature = (f: GeneratedFile, head: string, decl: FunctionDecl, end: string): Printable[] =>
  signature(
    [f.export(head, decl.name), decl.generics ?? ""],
    decl.params.map(([name, type]) => [name, ": ", type]),
    decl.returns,
    end,
  );

const printBody = (f: GeneratedFile, decl: FunctionDecl) => {
  for (const line of decl.body) f.print(line);
  f.print("}");
};

const ts: TargetPrinter = {
  target: "ts",
  module: (parts) => parts.values(true),
  constant(f, { name, type, value, asConst }) {
    if (asConst) f.print(f.export("const", name), " = ", value, " as const satisfies ", type, ";");
    else f.print(f.export("const", name), ": ", type, " = ", value, ";");
  },
  function(f, decl) {
    f.print(...typedSignature(f, "function", decl, " {"));
    printBody(f, decl);
  },
  types: (print) => print(),
  importValue: (f, name, from) => f.import(name, from),
};

const js: TargetPrinter = {
  target: "js",
  module: (parts) => parts.values(false),
  constant(f, { name, value }) {
    f.print(f.export("const", name), " = ", value, ";");
  },
  function(f, decl) {
    const names = decl.params.map(([name]) => name.replace(/\?$/, ""));
    f.print(f.export("function", decl.name), `(${names.join(", ")}) {`);
    printBody(f, decl);
  },
  types: () => {},
  importValue: (f, name, from) => f.import(name, from),
};

const dts: TargetPrinter = {
  target: "dts",
  module: (parts) => parts.declarations(),
  constant(f, { name, type }) {
    f.print(f.export("declare const", name), ": ", type, ";");
  },
  function(f, decl) {
    f.print(...typedSignature(f, "declare function", decl, ";"));
  },
  types: (print) => print(),
  importValue: (f, name, from) => f.import(name, from, true),
};

const printers: Readonly<Record<Target, TargetPrinter>> = { ts, js, dts };

/** The printer of a target. */
export const targetPrinter = (target: Target): TargetPrinter => printers[target];
