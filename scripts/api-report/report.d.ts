// Types of scripts/api-report/report.js, for the TypeScript test that imports it.

/** A module of a report: heading, the name it is imported by; path, relative to the root. */
export interface ModuleSpec {
  readonly heading: string;
  readonly path: string;
}

/** A report file (relative to the root) and the modules it shows. */
export interface ReportSpec {
  readonly file: string;
  readonly title: string;
  readonly modules: readonly ModuleSpec[];
}

/** A report file that differs from the code, with its message (the file and its first differing lines). */
export interface ReportDifference {
  readonly file: string;
  readonly message: string;
}

/** The root of this repository. */
export const repoRoot: string;

/** The three reports of this repository: the runtime package, the generator package, the generated modules. */
export function reportSpecs(root: string): ReportSpec[];

/** The report texts, by file relative to the root. */
export function buildReports(root: string, specs?: readonly ReportSpec[]): Map<string, string>;

/** Each report that differs from the file under root, is missing, or is an api/*.api.md no report writes. */
export function compareReports(root: string, reports: ReadonlyMap<string, string>): ReportDifference[];

/** `file differs ...; first difference at line n:` and up to three lines of each side from there. */
export function describeDifference(file: string, committed: string, current: string): string;

/** Writes the reports and removes api/*.api.md files no report writes; returns the files changed. */
export function writeReports(root: string, reports: ReadonlyMap<string, string>): string[];
