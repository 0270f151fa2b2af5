/**
 * Every problem found while generating is a GenerationError that names its
 * place (proto file and method, template column, override file and entry).
 * Problems are collected, then thrown together, so one run shows them all;
 * the message lists the first `shownProblems` of them and counts the rest, so
 * that a file with a hundred thousand problems is a short message, not
 * megabytes on stderr (the error keeps the whole list).
 */
export const shownProblems = 50;

export class GenerationError extends Error {
  override name = "GenerationError";
  constructor(readonly problems: readonly string[]) {
    super(problems.length === 1 ? problems[0]! : listed(problems));
  }
}

function listed(problems: readonly string[]): string {
  const shown = problems.slice(0, shownProblems);
  const rest = problems.length - shown.length;
  const more = rest > 0 ? `\n  … and ${rest} more` : "";
  return `${problems.length} problems:\n  - ${shown.join("\n  - ")}${more}`;
}

export class Problems {
  private readonly list: string[] = [];
  add(problem: string): void {
    this.list.push(problem);
  }
  get all(): readonly string[] {
    return this.list;
  }
  get size(): number {
    return this.list.length;
  }
  throwIfAny(): void {
    if (this.list.length > 0) throw new GenerationError(this.list);
  }
}
