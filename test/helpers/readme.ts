/**
 * The README's fenced code blocks, as the consumer and snippet tests read
 * them. A block's info string is `LANG title=NAME`: for files (`yaml`,
 * `json`, `ts`) NAME is the path the block is written to; for `sh` blocks
 * it names the step (install, generate) whose lines are run in order.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./run.js";

export interface ReadmeBlock {
  readonly lang: string;
  readonly title: string | undefined;
  readonly body: string;
  /** 1-based line of the opening fence, for messages. */
  readonly line: number;
}

export function readmeBlocks(file = join(repoRoot, "README.md")): ReadmeBlock[] {
  const lines = readFileSync(file, "utf8").split("\n");
  const blocks: ReadmeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w+)(?:\s+title=(\S+))?\s*$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== "```"; i++) body.push(lines[i]!);
    blocks.push({ lang: open[1]!, title: open[2], body: body.join("\n") + "\n", line: start + 1 });
  }
  return blocks;
}

/** The block titled `title`; throws naming the README line range when there is none. */
export function readmeBlock(title: string): ReadmeBlock {
  const found = readmeBlocks().find((b) => b.title === title);
  if (!found) throw new Error(`README.md has no code block with title=${title}`);
  return found;
}
