/**
 * Every problem found while generating is a GenerationError that names its
 * place (proto file and method, template column, override file and entry).
 * Problems are collected, then thrown together, so one run shows them all.
 */
export class GenerationError extends Error {
  override name = "GenerationError";
  constructor(readonly problems: readonly string[]) {
    super(problems.length === 1 ? problems[0]! : `${problems.length} problems:\n  - ${problems.join("\n  - ")}`);
  }
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
