/**
 * The `unit` project's setup: its tests run in the test process alone, so every way of starting a
 * process throws here, naming the project that may. A test that needs a process, a server of its own,
 * a browser, PostgreSQL or `dist/` belongs to `e2e` (see `vitest.config.ts`).
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

export const REFUSAL = 'the unit project starts no process: a test that does belongs in the e2e project';

for (const name of STARTERS) {
  Object.defineProperty(childProcess, name, {
    configurable: true,
    writable: true,
    value: (command: unknown) => {
      throw new Error(`child_process.${name}(${JSON.stringify(command)}): ${REFUSAL} (vitest.config.ts)`);
    },
  });
}
// ES module imports of node:child_process see the CommonJS object's properties only once synced.
syncBuiltinESMExports();
