/** `toolgen init`. */
import { defineCommand } from '../command.js';

export const init = defineCommand({
  name: 'init',
  description:
    'scaffold toolgen.config.yaml, an atomic tool with its handler, a composite, and a vitest config; never overwrites',
  details:
    'Starts a project: `toolgen.config.yaml`, an atomic tool (`tools/greet.yaml` and its handler `tools/greet.ts`), a composite that calls it (`tools/welcome.yaml`), and, when the app has none, a `vitest.config.ts` that runs `generated/**/*.test.ts` and a `tsconfig.json` (the one of Use toolgen in your app, step 2, with `include` naming `tools`). Never overwrites a file; prints the next commands (first `npm install @toolgen/runtime` when the app cannot import the runtime yet, naming the packed `toolgen-runtime-<version>.tgz` to install until it is published, and `npm install --save-dev` of whichever of `typescript`, `vitest` (with `vite@~8.3.8`, see Use toolgen in your app, step 1) and `@types/node` it cannot import).',
  exit: '0, or 2 when a file exists',
  programFlags: [],
  run: async ({ cwd, output }) => {
    const { initCommand } = await import('../init-command.js');
    return initCommand(cwd, output);
  },
});
