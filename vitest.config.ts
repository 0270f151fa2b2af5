import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: "forks",
    globalSetup: ["test/helpers/postgres-setup.ts"],
    // Each test file's temporary files under one directory, removed after the file (temp-root.ts).
    setupFiles: ["test/helpers/temp-root.ts"],
  },
});
