import { defineConfig } from 'vitest/config';

// Integration tests build real namespaces and measure timing: run files one at a time
// so two tests never compete for the two cores while a delay is being measured.
// CCB_TEST_REPORT=FILE also writes vitest's JSON report there (.ci/run reads it for its totals).
const report = process.env.CCB_TEST_REPORT;

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // One scratch dir per suite run (TMPDIR), removed at its end: tests/global-setup.ts.
    globalSetup: ['tests/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: report ? ['default', 'json'] : ['default'],
    outputFile: report ? { json: report } : undefined,
  },
});
