/**
 * Parameters a printed function body does not read, for noUnusedParameters
 * (@tsconfig/strictest): such a parameter is printed with a leading "_".
 *
 * Rule: a parameter is read when its name occurs as a whole identifier in the
 * body's string printables outside string literals ("…", '…', `…` without
 * substitutions); import symbols never name a parameter.
 */
import type { Printable } from "@bufbuild/protoplugin";

const LITERALS = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\$]|\\.)*`/g;

/** The code of the body's string printables, string literals blanked out. */
function codeOf(body: Printable): string {
  const parts: string[] = [];
  const walk = (p: Printable): void => {
    if (typeof p === "string") parts.push(p);
    else if (Array.isArray(p)) for (const q of p) walk(q);
  };
  walk(body);
  return parts.join("\n").replace(LITERALS, '""');
}

/** The name to print for parameter `name`: itself when the body reads it, else `_name`. */
export function paramNames(body: Printable): (name: string) => string {
  const code = codeOf(body);
  return (name) => (new RegExp(`(?<![\\w$.])${name}(?![\\w$])`).test(code) ? name : `_${name}`);
}
