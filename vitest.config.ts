import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Inside this repository, generated code's `@toolgen/runtime` (RUNTIME_MODULE) is the runtime's source;
    // the longer name first, since a name also matches what starts with it and a '/'.
    alias: [
      {
        find: '@toolgen/runtime/mcp-client',
        replacement: fileURLToPath(new URL('./src/remote/client/index.ts', import.meta.url)),
      },
      { find: '@toolgen/runtime', replacement: fileURLToPath(new URL('./src/runtime/index.ts', import.meta.url)) },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'generated/**/*.test.ts'],
    // Temporary projects made by tests hold generated tests of their own.
    exclude: ['test/.tmp/**', '**/node_modules/**'],
    testTimeout: 120_000,
    // Hooks start servers and processes too: vitest's 10 s is too short on a loaded two-core machine.
    hookTimeout: 120_000,
  },
});
