/** `toolgen init`: the scaffold, and what to run next. */
import { createRequire } from 'node:module';
import path from 'node:path';
import { RUNTIME_MODULE } from '../compiler/emit/runtime-module.js';
import { packageVersion } from '../language/package-version.js';
import { EXIT, UsageError } from './exit.js';
import { initProject } from './init.js';
import type { Output } from './output.js';

/** What the scaffold's tsconfig and vitest config need, besides toolgen itself. */
const DEVELOPMENT_PACKAGES = ['typescript', 'vitest', '@types/node'] as const;

/**
 * What to install for each: vitest 4 takes the newest vite 8, and vite 8.4.0 lists an optional
 * dependency the registry does not serve, so npm writes a lock that `npm ci` refuses; vite 8.3 installs.
 */
const INSTALL_AS: Readonly<Record<(typeof DEVELOPMENT_PACKAGES)[number], string>> = {
  typescript: 'typescript',
  vitest: 'vitest vite@~8.3.8',
  '@types/node': '@types/node',
};

export async function initCommand(root: string, output: Output): Promise<number> {
  const { written, refused, vitestIncludeNeeded } = await initProject(root);
  if (refused.length > 0)
    throw new UsageError(`init writes nothing over existing files, and these exist: ${refused.join(', ')}`);
  for (const file of written) output.out(`  created ${file}`);
  output.out('toolgen: a new project is ready. Next:');
  if (!resolvable(root, `${RUNTIME_MODULE}/package.json`))
    output.out(
      `  npm install ${RUNTIME_MODULE}   # the runtime the generated code imports (a production dependency); until it is published, the toolgen-runtime-${packageVersion()}.tgz that toolgen's \`npm run pack\` writes`,
    );
  const missing = DEVELOPMENT_PACKAGES.filter((name) => !resolvable(root, `${name}/package.json`));
  if (missing.length > 0)
    output.out(
      `  npm install --save-dev ${missing.map((name) => INSTALL_AS[name]).join(' ')}   # type-check handlers and generated code, run the tests`,
    );
  output.out('  npx toolgen          # compile tools/ into generated/');
  output.out('  npx vitest run       # run the generated tests');
  if (vitestIncludeNeeded) output.out("  (add 'generated/**/*.test.ts' to the include of your vitest config)");
  return EXIT.ok;
}

/** Whether the app at `root` can import `specifier` (the runtime is installed there or above). */
function resolvable(root: string, specifier: string): boolean {
  try {
    createRequire(path.join(root, 'package.json')).resolve(specifier);
    return true;
  } catch {
    return false;
  }
}
