/**
 * Path templates of google/api/http.proto.
 *
 *   Template = "/" Segments [ Verb ] ;
 *   Segments = Segment { "/" Segment } ;
 *   Segment  = "*" | "**" | LITERAL | Variable ;
 *   Variable = "{" FieldPath [ "=" Segments ] "}" ;
 *   FieldPath = IDENT { "." IDENT } ;
 *   Verb     = ":" LITERAL ;
 *
 * Rules enforced here (http.proto): "**" may only be the last segment of the
 * template; variables do not nest; `{var}` means `{var=*}`. LITERAL is one or
 * more RFC 3986 pchar except ":" (the verb separator), "*", "=", "{" and "}".
 * Every error carries the 1-based column where the problem starts.
 *
 * The printer is the inverse of the parser: print(parse(t)) === t.
 */

export type TemplateSegment =
  | { readonly kind: "literal"; readonly value: string }
  | { readonly kind: "wildcard" }
  | { readonly kind: "deepWildcard" }
  | {
      readonly kind: "variable";
      readonly fieldPath: readonly string[];
      /** Written as `{a=...}` rather than `{a}`; kept so printing is exact. */
      readonly explicit: boolean;
      readonly segments: readonly LeafSegment[];
    };

export type LeafSegment = Exclude<TemplateSegment, { kind: "variable" }>;

export interface PathTemplate {
  readonly text: string;
  readonly segments: readonly TemplateSegment[];
  readonly verb: string | undefined;
}

export class TemplateSyntaxError extends Error {
  constructor(
    readonly template: string,
    /** 1-based column in the template text. */
    readonly column: number,
    readonly reason: string,
  ) {
    super(`path template "${template}", column ${column}: ${reason}`);
    this.name = "TemplateSyntaxError";
  }
}

const identStart = /[A-Za-z_]/;
const identPart = /[A-Za-z0-9_]/;
// RFC 3986 pchar minus the characters the template grammar reserves.
const literalChar = /[A-Za-z0-9\-._~!$&'()+,;@]/;
const hex = /[0-9A-Fa-f]/;

export function parsePathTemplate(text: string): PathTemplate {
  let pos = 0;
  const fail = (reason: string, at = pos): never => {
    throw new TemplateSyntaxError(text, at + 1, reason);
  };
  const peek = () => text[pos];

  const literal = (what: string): string => {
    const start = pos;
    while (pos < text.length) {
      const c = text[pos]!;
      if (c === "%") {
        if (!hex.test(text[pos + 1] ?? "") || !hex.test(text[pos + 2] ?? "")) {
          fail("a percent sign must start a %XX escape");
        }
        pos += 3;
      } else if (literalChar.test(c)) {
        pos++;
      } else {
        break;
      }
    }
    if (pos === start) {
      const c = peek();
      fail(c === undefined ? `expected ${what}, found the end` : `expected ${what}, found "${c}"`);
    }
    return text.slice(start, pos);
  };

  const leaf = (): LeafSegment => {
    if (peek() === "*") {
      pos++;
      if (peek() === "*") {
        pos++;
        return { kind: "deepWildcard" };
      }
      return { kind: "wildcard" };
    }
    if (peek() === "{") fail("variables cannot nest");
    return { kind: "literal", value: literal("a literal, * or **") };
  };

  const ident = (): string => {
    const start = pos;
    if (!identStart.test(peek() ?? "")) {
      fail(peek() === undefined ? "expected a field name, found the end" : `expected a field name, found "${peek()}"`);
    }
    while (pos < text.length && identPart.test(text[pos]!)) pos++;
    return text.slice(start, pos);
  };

  const variable = (): TemplateSegment => {
    const open = pos;
    pos++; // "{"
    const fieldPath = [ident()];
    while (peek() === ".") {
      pos++;
      fieldPath.push(ident());
    }
    let explicit = false;
    const segments: LeafSegment[] = [];
    if (peek() === "=") {
      explicit = true;
      pos++;
      segments.push(leaf());
      while (peek() === "/") {
        pos++;
        segments.push(leaf());
      }
    } else {
      segments.push({ kind: "wildcard" });
    }
    if (peek() === undefined) fail(`unbalanced "{": no closing "}" for the variable at column ${open + 1}`, open);
    if (peek() === "{") fail("variables cannot nest");
    if (peek() !== "}") fail(`expected "}" to close the variable at column ${open + 1}, found "${peek()}"`);
    pos++;
    return { kind: "variable", fieldPath, explicit, segments };
  };

  if (peek() !== "/") fail('a template must start with "/"');
  pos++;
  const segments: TemplateSegment[] = [];
  const starts: number[] = [];
  for (;;) {
    starts.push(pos);
    if (peek() === "}") fail('unbalanced "}"');
    segments.push(peek() === "{" ? variable() : leaf());
    if (peek() !== "/") break;
    pos++;
  }
  let verb: string | undefined;
  if (peek() === ":") {
    pos++;
    verb = literal('a verb after ":"');
  }
  if (pos < text.length) {
    fail(peek() === "}" ? 'unbalanced "}"' : `unexpected "${peek()}"`);
  }

  // "**" must be the last segment of the whole template (a verb may follow).
  const flat = segments.flatMap((s, i) =>
    s.kind === "variable"
      ? s.segments.map((leafSeg) => ({ leafSeg, at: starts[i]! }))
      : [{ leafSeg: s, at: starts[i]! }],
  );
  flat.forEach(({ leafSeg, at }, i) => {
    if (leafSeg.kind === "deepWildcard" && i !== flat.length - 1) {
      fail('"**" must be the last segment', at);
    }
  });
  return { text, segments, verb };
}

export function printPathTemplate(t: Pick<PathTemplate, "segments" | "verb">): string {
  const leaf = (s: LeafSegment) => (s.kind === "literal" ? s.value : s.kind === "wildcard" ? "*" : "**");
  const seg = (s: TemplateSegment) =>
    s.kind === "variable"
      ? `{${s.fieldPath.join(".")}${s.explicit ? "=" + s.segments.map(leaf).join("/") : ""}}`
      : leaf(s);
  return "/" + t.segments.map(seg).join("/") + (t.verb !== undefined ? ":" + t.verb : "");
}

/** One matchable segment: a literal, "*" (exactly one segment) or "**" (the rest). */
export type FlatSegment = string;

export interface FlatVariable {
  /** Dotted proto field path, e.g. "task_id". */
  readonly fieldPath: string;
  /** Index of the first flat segment the variable covers. */
  readonly start: number;
  /** Index one past its last segment. */
  readonly end: number;
}

/** Flattens variables away so a matcher sees one list of segments. */
export function flattenTemplate(t: PathTemplate): { segments: FlatSegment[]; variables: FlatVariable[] } {
  const segments: FlatSegment[] = [];
  const variables: FlatVariable[] = [];
  const leaf = (s: LeafSegment) => (s.kind === "literal" ? s.value : s.kind === "wildcard" ? "*" : "**");
  for (const s of t.segments) {
    if (s.kind === "variable") {
      const start = segments.length;
      segments.push(...s.segments.map(leaf));
      variables.push({ fieldPath: s.fieldPath.join("."), start, end: segments.length });
    } else {
      segments.push(leaf(s));
    }
  }
  return { segments, variables };
}
