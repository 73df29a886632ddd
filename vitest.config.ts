import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { E2E, GENERATED } from './test/projects.js';

// Temporary projects made by tests hold generated tests of their own.
const exclude = ['test/.tmp/**', '**/node_modules/**'];

export default defineConfig({
  resolve: {
    // Inside this repository, generated code's `@toolgen/runtime` (RUNTIME_MODULE) is the runtime's source;
    // the longer name first, since a name also matches what starts with it and a '/'.
    alias: [
      {
        find: '@toolgen/runtime/http',
        replacement: fileURLToPath(new URL('./src/remote/http/index.ts', import.meta.url)),
      },
      {
        find: '@toolgen/runtime/mcp-client',
        replacement: fileURLToPath(new URL('./src/remote/client/index.ts', import.meta.url)),
      },
      { find: '@toolgen/runtime', replacement: fileURLToPath(new URL('./src/runtime/index.ts', import.meta.url)) },
    ],
  },
  test: {
    testTimeout: 120_000,
    // Hooks start servers and processes too: vitest's 10 s is too short on a loaded two-core machine.
    hookTimeout: 120_000,
    // `npx vitest run` runs them all; `--project unit` the fast loop (which files go where: test/projects.ts).
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...exclude, ...E2E, ...GENERATED],
          setupFiles: ['test/setup/no-processes.ts'],
        },
      },
      { extends: true, test: { name: 'e2e', include: E2E, exclude } },
      { extends: true, test: { name: 'generated', include: GENERATED, exclude } },
    ],
  },
});
