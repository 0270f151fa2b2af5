/** The Markdown templates in templates/ and how they are compiled (at build time, by scripts/build-assets.js). */
export const templateNames = ["operations", "routes", "errors", "overrides", "versions", "compat", "sources"] as const;
export type TemplateName = (typeof templateNames)[number];

/** Markdown, not HTML: nothing is escaped; a missing field is an error; only the built-in block helpers. */
export const templateOptions = {
  noEscape: true,
  strict: true,
  knownHelpersOnly: true,
  knownHelpers: { if: true, each: true, unless: true },
} as const;
