/**
 * Whether a test file that drives Chromium can run here: undefined when Debian's Chromium is there, else why
 * not (the file then skips with one line). Under CI=true, where .ci/run installs Chromium, its absence throws.
 */
import { chromiumPath } from "../../scripts/docs/chromium.js";

export function missingChromium(file: string): string | undefined {
  try {
    chromiumPath();
    return undefined;
  } catch (error) {
    if (process.env["CI"] === "true") throw error;
    const reason = (error as Error).message;
    console.log(`skipping ${file}: ${reason}`);
    return reason;
  }
}
