// @ts-check
// Rule: a declaration is shown as a declaration file would show it: no
// bodies, values, comments or private members.
//   function   export declare function f<T>(a: A, b?: B): R;   (one line per overload)
//   class      export declare class C extends B { constructor(...); members }
//   interface  export interface I { members }
//   type       export type T = ...;
//   const      export declare const x: T;
//              export const x = [/* 3 elements */] as const satisfies T;   (a table declared `as const`)
//   enum       export declare enum E { ... }
//   namespace  export * as ns from "...";   (a namespace re-export)
// A declaration the module does not export is shown the same way without
// `export`. Types are taken as written. Where the source leaves one out, it is
// read off the syntax as TypeScript's declaration emit would (a literal,
// `x as T`, an arrow function with its types written); only what is left goes
// to the type checker (infer). Every node whose text is used is kept in refs,
// for the caller to find the declarations it names. Nothing here lays out text.
import { Node, SyntaxKind, ts } from "ts-morph";

/** @typedef {import("ts-morph").SourceFile} SourceFile */
/** @typedef {import("ts-morph").Node} AnyNode */
/**
 * The checker's type of a declaration ("type") or of a function's result ("return"), written as in its module.
 * @typedef {(node: AnyNode, what: "type" | "return") => string} Infer
 */
/** @typedef {{ infer: Infer; refs: AnyNode[]; text: (node: AnyNode) => string }} Context */

/**
 * @param {string} name the exported name (differs from the declared one after `export { a as b }`)
 * @param {AnyNode} d
 * @param {{ file: SourceFile; infer: Infer; exported: boolean }} options file: the module whose export this is
 * @returns {{ text: string; refs: AnyNode[] }}
 */
export function renderDeclaration(name, d, { file, infer, exported }) {
  if (name === "default" && exported && !Node.isExpression(d) && !Node.isSourceFile(d)) {
    // `export default function f` is shown as `declare function f ...; export default f;` (as in a .d.ts).
    const own = (Node.hasName(d) && d.getName()) || "_default";
    const r = renderDeclaration(own, d, { file, infer, exported: false });
    return { text: `${r.text}\nexport default ${own};`, refs: r.refs };
  }
  /** @type {AnyNode[]} */
  const refs = [];
  /** @type {Context} */
  const ctx = {
    infer,
    refs,
    text: (node) => {
      refs.push(node);
      return stripComments(node.getText());
    },
  };
  const text = declarationText(name, d, file, ctx);
  return { text: exported ? text : text.replace(/^export (declare )?/, (_, declare) => declare ?? ""), refs };
}

/** @param {string} name @param {AnyNode} d @param {SourceFile} file @param {Context} ctx */
function declarationText(name, d, file, ctx) {
  if (Node.isFunctionDeclaration(d)) return `export declare function ${name}${signature(d, ctx)};`;
  if (Node.isClassDeclaration(d)) return renderClass(name, d, ctx);
  if (Node.isVariableDeclaration(d)) return renderVariable(name, d, ctx);
  if (Node.isInterfaceDeclaration(d) || Node.isTypeAliasDeclaration(d)) return "export " + declaredText(name, d, ctx);
  if (Node.isEnumDeclaration(d) || Node.isModuleDeclaration(d)) return "export declare " + declaredText(name, d, ctx);
  if (Node.isSourceFile(d)) return `export * as ${name} from "${moduleSpecifierOf(file, name)}";`;
  if (Node.isExpression(d)) return `declare const _default: ${ctx.infer(d, "type")};\nexport default _default;`;
  throw new Error(`api-report: ${name} is a ${d.getKindName()}, which the report does not know`);
}

/** Whether a declaration is a value (not only a type): a type-only export of one is marked. */
export function isValueDeclaration(/** @type {AnyNode} */ d) {
  return (
    Node.isClassDeclaration(d) ||
    Node.isFunctionDeclaration(d) ||
    Node.isVariableDeclaration(d) ||
    Node.isEnumDeclaration(d)
  );
}

/** A function or method body whose overload signatures are the declarations shown. */
export function isOverloadedImplementation(/** @type {AnyNode} */ d) {
  return (
    (Node.isFunctionDeclaration(d) || Node.isMethodDeclaration(d) || Node.isConstructorDeclaration(d)) &&
    d.isImplementation() &&
    d.getOverloads().length > 0
  );
}

/** The specifier of `export * as name from "..."` in file. */
function moduleSpecifierOf(/** @type {SourceFile} */ file, /** @type {string} */ name) {
  const decl = file.getExportDeclarations().find((e) => e.getNamespaceExport()?.getName() === name);
  return decl?.getModuleSpecifierValue() ?? "?";
}

/**
 * The declaration's own text without comments or leading modifiers, named as exported.
 * @param {string} name
 * @param {import("ts-morph").InterfaceDeclaration | import("ts-morph").TypeAliasDeclaration
 *   | import("ts-morph").EnumDeclaration | import("ts-morph").ModuleDeclaration} d
 * @param {Context} ctx
 */
function declaredText(name, d, ctx) {
  const text = ctx.text(d).replace(/^\s*((export|declare|default)\s+)*/, "");
  const declared = d.getName();
  if (declared === name) return text;
  return text.replace(new RegExp(`^((const\\s+)?\\w+\\s+)${escapeRegExp(declared)}\\b`), `$1${name}`);
}

function escapeRegExp(/** @type {string} */ s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `<A, B extends C>`, or nothing. */
function typeParameters(/** @type {import("ts-morph").TypeParameteredNode} */ d, /** @type {Context} */ ctx) {
  const tps = d.getTypeParameters().map((t) => ctx.text(t));
  return tps.length ? `<${tps.join(", ")}>` : "";
}

/**
 * `<T>(a: A, b?: B): R` of a function or method; `(a: A)` of a constructor.
 * @param {import("ts-morph").FunctionDeclaration | import("ts-morph").MethodDeclaration
 *   | import("ts-morph").ConstructorDeclaration} d
 * @param {Context} ctx
 */
function signature(d, ctx) {
  const params = d
    .getParameters()
    .map((p) => parameter(p, ctx))
    .join(", ");
  if (Node.isConstructorDeclaration(d)) return `(${params})`;
  const ret = d.getReturnTypeNode();
  return `${typeParameters(d, ctx)}(${params}): ${ret ? ctx.text(ret) : ctx.infer(d, "return")}`;
}

/**
 * `...name?: T`: no modifiers, no initializer; a parameter with an initializer is optional.
 * @param {import("ts-morph").ParameterDeclaration} p
 * @param {Context} ctx
 */
function parameter(p, ctx) {
  const optional = !p.isRestParameter() && (p.hasQuestionToken() || p.hasInitializer());
  const name = stripComments(p.getNameNode().getText());
  return `${p.isRestParameter() ? "..." : ""}${name}${optional ? "?" : ""}: ${typeOf(p, ctx)}`;
}

/**
 * The written type of a parameter, property or variable, else the one its initializer gives, else the checker's.
 * @param {import("ts-morph").ParameterDeclaration | import("ts-morph").PropertyDeclaration
 *   | import("ts-morph").VariableDeclaration} d
 * @param {Context} ctx
 */
function typeOf(d, ctx) {
  const node = d.getTypeNode();
  if (node) return ctx.text(node);
  const constant = Node.isVariableDeclaration(d)
    ? d.getVariableStatement()?.getDeclarationKind() === "const"
    : Node.isPropertyDeclaration(d) && d.isReadonly();
  return initializerType(d.getInitializer(), !constant, ctx) ?? ctx.infer(d, "type");
}

/**
 * The type an initializer gives without the checker: a literal (widened unless constant), `x as T`, or a function
 * expression whose parameter and return types are written.
 * @param {AnyNode | undefined} init
 * @param {boolean} widen
 * @param {Context} ctx
 * @returns {string | undefined}
 */
function initializerType(init, widen, ctx) {
  const expr = Node.isParenthesizedExpression(init) ? init.getExpression() : init;
  if (Node.isStringLiteral(expr) || Node.isNoSubstitutionTemplateLiteral(expr)) {
    return widen ? "string" : JSON.stringify(expr.getLiteralValue());
  }
  if (Node.isTemplateExpression(expr)) return "string";
  if (Node.isNumericLiteral(expr) || isNegativeNumber(expr)) {
    return widen ? "number" : stripComments(/** @type {AnyNode} */ (expr).getText());
  }
  if (Node.isBigIntLiteral(expr)) return widen ? "bigint" : expr.getText();
  if (Node.isTrueLiteral(expr) || Node.isFalseLiteral(expr)) return widen ? "boolean" : expr.getText();
  if (Node.isAsExpression(expr) && expr.getTypeNode()?.getText() !== "const") {
    return ctx.text(/** @type {AnyNode} */ (expr.getTypeNode()));
  }
  if ((Node.isArrowFunction(expr) || Node.isFunctionExpression(expr)) && expr.getReturnTypeNode()) {
    const params = expr.getParameters();
    if (params.every((p) => p.getTypeNode() || literalDefault(p))) {
      const ret = ctx.text(/** @type {AnyNode} */ (expr.getReturnTypeNode()));
      return `${typeParameters(expr, ctx)}(${params.map((p) => parameter(p, ctx)).join(", ")}) => ${ret}`;
    }
  }
  return undefined;
}

function isNegativeNumber(/** @type {AnyNode | undefined} */ expr) {
  return (
    Node.isPrefixUnaryExpression(expr) &&
    expr.getOperatorToken() === SyntaxKind.MinusToken &&
    Node.isNumericLiteral(expr.getOperand())
  );
}

function literalDefault(/** @type {import("ts-morph").ParameterDeclaration} */ p) {
  const none = { infer: () => "", refs: [], text: () => "" };
  return initializerType(p.getInitializer(), true, none) !== undefined;
}

/**
 * @param {string} name
 * @param {import("ts-morph").VariableDeclaration} d
 * @param {Context} ctx
 */
function renderVariable(name, d, ctx) {
  const keyword = d.getVariableStatement()?.getDeclarationKind() ?? "const";
  const table = d.getTypeNode() ? undefined : asConstTable(d.getInitializer(), ctx);
  if (table) return `export ${keyword} ${name} = ${table};`;
  return `export declare ${keyword} ${name}: ${typeOf(d, ctx)};`;
}

/**
 * `[/* n elements *\/] as const satisfies T` for a literal table declared `as const` (its literal type is its data).
 * @param {AnyNode | undefined} init
 * @param {Context} ctx
 */
function asConstTable(init, ctx) {
  let expr = init;
  let satisfies = "";
  if (Node.isSatisfiesExpression(expr)) {
    satisfies = ` satisfies ${ctx.text(/** @type {AnyNode} */ (expr.getTypeNode()))}`;
    expr = expr.getExpression();
  }
  if (!Node.isAsExpression(expr) || expr.getTypeNode()?.getText() !== "const") return undefined;
  const literal = expr.getExpression();
  if (Node.isArrayLiteralExpression(literal)) {
    return `[/* ${count(literal.getElements().length, "element")} */] as const${satisfies}`;
  }
  if (Node.isObjectLiteralExpression(literal)) {
    return `{/* ${count(literal.getProperties().length, "property")} */} as const${satisfies}`;
  }
  return undefined;
}

function count(/** @type {number} */ n, /** @type {string} */ noun) {
  return `${n} ${n === 1 ? noun : noun === "property" ? "properties" : noun + "s"}`;
}

/**
 * @param {string} name
 * @param {import("ts-morph").ClassDeclaration} d
 * @param {Context} ctx
 */
function renderClass(name, d, ctx) {
  const abstract = d.isAbstract() ? "abstract " : "";
  const ext = d.getExtends();
  const impl = d.getImplements().map((i) => ctx.text(i));
  const head =
    `export declare ${abstract}class ${name}${typeParameters(d, ctx)}` +
    (ext ? ` extends ${ctx.text(ext)}` : "") +
    (impl.length ? ` implements ${impl.join(", ")}` : "");
  // getMembers() gives a method or constructor with overloads as its implementation: classMember shows the overloads.
  const members = d
    .getMembers()
    .filter((m) => !isHidden(m))
    .flatMap((m) => classMember(m, ctx));
  return `${head} {\n${members.join("\n")}\n}`;
}

/** Private members (`private x`, `#x`) and static blocks are not part of the surface. */
function isHidden(/** @type {AnyNode} */ m) {
  if (Node.isClassStaticBlockDeclaration(m)) return true;
  if ((Node.isScoped(m) || Node.isScopeable(m)) && m.getScope() === "private") return true;
  return (
    (Node.isPropertyDeclaration(m) || Node.isMethodDeclaration(m)) &&
    m.getNameNode().getKind() === SyntaxKind.PrivateIdentifier
  );
}

/** The modifiers a declaration file keeps, in source order. */
function modifiers(/** @type {AnyNode} */ m) {
  if (!Node.isModifierable(m)) return "";
  const kept = new Set(["protected", "static", "abstract", "readonly"]);
  return m
    .getModifiers()
    .map((x) => x.getText())
    .filter((x) => kept.has(x))
    .map((x) => x + " ")
    .join("");
}

/**
 * A member's lines: one per overload; a constructor's parameter properties first, as properties.
 * @param {import("ts-morph").ClassMemberTypes} m
 * @param {Context} ctx
 * @returns {string[]}
 */
function classMember(m, ctx) {
  const mods = modifiers(m);
  if (Node.isConstructorDeclaration(m)) {
    const props = m
      .getParameters()
      .filter((p) => p.isParameterProperty() && !isHidden(p))
      .map((p) => `${modifiers(p)}${p.getName()}${p.hasQuestionToken() ? "?" : ""}: ${typeOf(p, ctx)};`);
    return [...props, ...overloadsOr(m).map((c) => `constructor${signature(c, ctx)};`)];
  }
  if (Node.isMethodDeclaration(m)) return overloadsOr(m).map((o) => `${mods}${memberName(m)}${signature(o, ctx)};`);
  if (Node.isPropertyDeclaration(m)) return [`${mods}${memberName(m)}: ${typeOf(m, ctx)};`];
  if (Node.isGetAccessorDeclaration(m)) {
    const ret = m.getReturnTypeNode();
    return [`${mods}get ${memberName(m)}(): ${ret ? ctx.text(ret) : ctx.infer(m, "return")};`];
  }
  if (Node.isSetAccessorDeclaration(m)) {
    return [
      `${mods}set ${memberName(m)}(${m
        .getParameters()
        .map((p) => parameter(p, ctx))
        .join(", ")});`,
    ];
  }
  return [];
}

/**
 * A member's name as written, with `?` when it is optional.
 * @param {import("ts-morph").MethodDeclaration | import("ts-morph").PropertyDeclaration
 *   | import("ts-morph").GetAccessorDeclaration | import("ts-morph").SetAccessorDeclaration} m
 */
function memberName(m) {
  const optional = (Node.isMethodDeclaration(m) || Node.isPropertyDeclaration(m)) && m.hasQuestionToken();
  return stripComments(m.getNameNode().getText()) + (optional ? "?" : "");
}

/**
 * A method's or constructor's overload signatures, or the declaration itself when it has none.
 * @template {import("ts-morph").MethodDeclaration | import("ts-morph").ConstructorDeclaration} T
 * @param {T} m
 * @returns {T[]}
 */
function overloadsOr(m) {
  const overloads = m.isImplementation() ? /** @type {T[]} */ (m.getOverloads()) : [];
  return overloads.length ? overloads : [m];
}

/**
 * Source text without comments, runs of blank space kept as one space or one line break
 * (so that comments and blank lines added to the source leave the report as it is).
 * @param {string} text
 */
export function stripComments(text) {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  /** @type {string[]} */
  const braces = [];
  let out = "";
  let gap = "";
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.NewLineTrivia) gap = "\n";
    else if (kind === ts.SyntaxKind.WhitespaceTrivia || isComment(kind)) gap ||= " ";
    else {
      if (kind === ts.SyntaxKind.TemplateHead) braces.push("template");
      else if (kind === ts.SyntaxKind.OpenBraceToken) braces.push("brace");
      else if (kind === ts.SyntaxKind.CloseBraceToken && braces.pop() === "template") {
        kind = scanner.reScanTemplateToken(false);
        if (kind === ts.SyntaxKind.TemplateMiddle) braces.push("template");
      }
      out += (out ? gap : "") + scanner.getTokenText();
      gap = "";
    }
  }
  return out;
}

function isComment(/** @type {ts.SyntaxKind} */ kind) {
  return kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia;
}
