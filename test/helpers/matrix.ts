/** An interop matrix: cells recorded as tests run, printed as a Markdown table at the end. */
export interface Matrix {
  /**
   * Runs a cell and records it: "ok", the note the body returns (e.g. "a2a-js
   * defect: …"), or "FAIL" plus what `seen` was last told.
   */
  cell(
    row: string,
    col: string,
    body: (seen: (what: string) => void) => Promise<string | undefined> | Promise<void>,
  ): Promise<void>;
  print(): void;
}

export function createMatrix(title: string): Matrix {
  const rows = new Map<string, Map<string, string>>();
  const record = (row: string, col: string, value: string) => {
    if (!rows.has(row)) rows.set(row, new Map());
    rows.get(row)!.set(col, value);
  };
  return {
    async cell(row, col, body) {
      let observed = "";
      try {
        record(row, col, (await body((what) => (observed = what))) ?? "ok");
      } catch (e) {
        record(row, col, observed ? `FAIL (${observed})` : "FAIL");
        throw e;
      }
    },
    print() {
      const cols = [...new Set([...rows.values()].flatMap((m) => [...m.keys()]))];
      const lines = [`| operation | ${cols.join(" | ")} |`, `|---|${cols.map(() => "---").join("|")}|`];
      for (const [row, m] of rows) lines.push(`| ${row} | ${cols.map((c) => m.get(c) ?? "–").join(" | ")} |`);
      process.stdout.write(`\n${title}\n${lines.join("\n")}\n`);
    },
  };
}
