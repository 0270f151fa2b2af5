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
  return new TemplateParser(text).template();
}

/** One pass over a template's text, a method per rule of the grammar above; `pos` is the next character. */
class TemplateParser {
  private pos = 0;
  constructor(private readonly text: string) {}

  private fail(reason: string, at = this.pos): never {
    throw new TemplateSyntaxError(this.text, at + 1, reason);
  }

  private peek(): string | undefined {
    return this.text[this.pos];
  }

  /** Template = "/" Segments [ Verb ], then "**" checked to come last. */
  template(): PathTemplate {
    if (this.peek() !== "/") this.fail('a template must start with "/"');
    this.pos++;
    const segments: TemplateSegment[] = [];
    const starts: number[] = [];
    for (;;) {
      starts.push(this.pos);
      if (this.peek() === "}") this.fail('unbalanced "}"');
      segments.push(this.peek() === "{" ? this.variable() : this.leaf());
      if (this.peek() !== "/") break;
      this.pos++;
    }
    let verb: string | undefined;
    if (this.peek() === ":") {
      this.pos++;
      verb = this.literal('a verb after ":"');
    }
    if (this.pos < this.text.length) this.fail(this.peek() === "}" ? 'unbalanced "}"' : `unexpected "${this.peek()}"`);
    this.deepWildcardLast(segments, starts);
    return { text: this.text, segments, verb };
  }

  /** "**" must be the last segment of the whole template (a verb may follow). */
  private deepWildcardLast(segments: readonly TemplateSegment[], starts: readonly number[]): void {
    const flat = segments.flatMap((s, i) =>
      s.kind === "variable"
        ? s.segments.map((leafSeg) => ({ leafSeg, at: starts[i]! }))
        : [{ leafSeg: s, at: starts[i]! }],
    );
    flat.forEach(({ leafSeg, at }, i) => {
      if (leafSeg.kind === "deepWildcard" && i !== flat.length - 1) this.fail('"**" must be the last segment', at);
    });
  }

  /** LITERAL: pchar and %XX escapes. */
  private literal(what: string): string {
    const { text } = this;
    const start = this.pos;
    while (this.pos < text.length) {
      const c = text[this.pos]!;
      if (c === "%") {
        if (!hex.test(text[this.pos + 1] ?? "") || !hex.test(text[this.pos + 2] ?? "")) {
          this.fail("a percent sign must start a %XX escape");
        }
        this.pos += 3;
      } else if (literalChar.test(c)) {
        this.pos++;
      } else {
        break;
      }
    }
    if (this.pos === start) {
      const c = this.peek();
      this.fail(c === undefined ? `expected ${what}, found the end` : `expected ${what}, found "${c}"`);
    }
    return text.slice(start, this.pos);
  }

  /** Segment without a variable: "*" | "**" | LITERAL. */
  private leaf(): LeafSegment {
    if (this.peek() === "*") {
      this.pos++;
      if (this.peek() === "*") {
        this.pos++;
        return { kind: "deepWildcard" };
      }
      return { kind: "wildcard" };
    }
    if (this.peek() === "{") this.fail("variables cannot nest");
    return { kind: "literal", value: this.literal("a literal, * or **") };
  }

  /** IDENT of a FieldPath. */
  private ident(): string {
    const start = this.pos;
    const c = this.peek();
    if (!identStart.test(c ?? "")) {
      this.fail(c === undefined ? "expected a field name, found the end" : `expected a field name, found "${c}"`);
    }
    while (this.pos < this.text.length && identPart.test(this.text[this.pos]!)) this.pos++;
    return this.text.slice(start, this.pos);
  }

  /** Variable = "{" FieldPath [ "=" Segments ] "}"; `{var}` means `{var=*}`. */
  private variable(): TemplateSegment {
    const open = this.pos;
    this.pos++; // "{"
    const fieldPath = [this.ident()];
    while (this.peek() === ".") {
      this.pos++;
      fieldPath.push(this.ident());
    }
    const explicit = this.peek() === "=";
    const segments: LeafSegment[] = [];
    if (explicit) {
      this.pos++;
      segments.push(this.leaf());
      while (this.peek() === "/") {
        this.pos++;
        segments.push(this.leaf());
      }
    } else {
      segments.push({ kind: "wildcard" });
    }
    const c = this.peek();
    if (c === undefined) this.fail(`unbalanced "{": no closing "}" for the variable at column ${open + 1}`, open);
    if (c === "{") this.fail("variables cannot nest");
    if (c !== "}") this.fail(`expected "}" to close the variable at column ${open + 1}, found "${c}"`);
    this.pos++;
    return { kind: "variable", fieldPath, explicit, segments };
  }
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
