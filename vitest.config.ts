import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Inside this repository, generated code's `toolgen/runtime` is the runtime's source.
    alias: { 'toolgen/runtime': fileURLToPath(new URL('./src/runtime/index.ts', import.meta.url)) },
  },
  test: {
    include: ['test/**/*.test.ts', 'generated/**/*.test.ts'],
    testTimeout: 120_000,
  },
});
