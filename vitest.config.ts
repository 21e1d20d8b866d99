import { defineConfig } from 'vitest/config';

// Integration tests build real namespaces and measure timing: run files one at a time
// so two tests never compete for the two cores while a delay is being measured.
export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
