#!/usr/bin/env node
/**
 * Packs toolgen as the two npm packages an app installs, the way Prisma splits its CLI and its client:
 *
 * - `toolgen`: the CLI and the compiler (all of dist/, so `toolgen run` and `serve` carry their own
 *   runtime; templates/, the schema). A development dependency.
 * - `@toolgen/runtime` (RUNTIME_MODULE in src/compiler/emit/runtime-module.ts): what generated code
 *   imports at run time, and nothing else. A production dependency.
 *
 * Both are assembled from dist/ in a staging folder, each with a package.json written here, so that
 * neither carries this repository's scripts (`prepare` builds a fresh clone, and would be an install
 * script in a user's install), devDependencies or allowScripts. The source files stay where they are.
 *
 * What goes where is read from this repository's package.json, the one place to change:
 * - Its `exports` other than `.` (the compiler API) and `./package.json` are the runtime package's
 *   subpaths, `./runtime` becoming its `.`: `./agents` → `@toolgen/runtime/agents`. The runtime
 *   package holds the modules of dist/ those entries reach (imports followed, `.d.ts` included); none
 *   may be the compiler's or the CLI's.
 * - Its dependencies: a package the modules of the runtime's `.` import statically is a dependency
 *   (and must not be an optional peer in package.json: the main entry would fail without it); one
 *   imported only by another subpath, or only through `import()`, or only by the main entry's
 *   declarations when package.json makes it an optional peer, is an optional peer dependency,
 *   installed by the apps that use it. Versions are this repository's. Except a package the CLI
 *   depends on (the MCP SDK, for `./mcp`, `./mcp-client`, `toolgen serve` and `mcp pull`): it is in every app's tree (as a dev
 *   package) and npm keeps an optional peer of a production package whenever it is in the tree, so
 *   declaring it would put it into every production install. It is left undeclared (`unlisted`), and
 *   an app that uses that subpath in production lists it in its own dependencies (the README says so).
 * - The CLI keeps the repository's `dependencies`; its `optionalDependencies` (tsx, which `toolgen
 *   run` and `serve` use to import a TypeScript index) become optional peers, so that installing
 *   toolgen runs no install script (tsx brings esbuild's postinstall). The runtime package is an
 *   optional peer of the same version: npm refuses a CLI and a runtime that do not match.
 *
 * Usage: npm run build && node scripts/pack.mjs [--out DIR] [--json]   (default out: packed/)
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const DIST = path.join(REPO, 'dist');
/** Folders of dist/ that belong to the CLI only. */
const CLI_ONLY = [
  'compiler/',
  'cli/',
  'lsp/',
  'migrate/',
  'remote/declare/config',
  'remote/lock/',
  'remote/pull/',
  'index.js',
  'index.d.ts',
];
/** What the build writes into dist/ that no package carries: the VS Code extension (scripts/vsix.mjs). */
const UNPACKED = path.join(DIST, 'vscode');

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** The name generated code imports, from the compiler's constant. */
export async function runtimeModuleName() {
  const file = path.join(DIST, 'compiler/emit/runtime-module.js');
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
  return (await import(pathToFileURL(file).href)).RUNTIME_MODULE;
}

// Top-level static imports and re-exports as tsc prints them, `import "x"`, and `import("x")` (also
// how a .d.ts refers to an inferred type).
const STATIC = /^(?:import|export)\s+(?:type\s+)?[\w$*{},\s]*?\s*from\s*['"]([^'"]+)['"]|^import\s*['"]([^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The specifiers a module imports: `{ static, dynamic }`. */
function importsOf(text) {
  return {
    static: [...text.matchAll(STATIC)].map((match) => match[1] ?? match[2]),
    dynamic: [...text.matchAll(DYNAMIC)].map((match) => match[1]),
  };
}

const isBuiltin = (specifier) => specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]);
const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/**
 * The modules of dist/ an entry reaches (relative to dist/, `.js` and `.d.ts`), and the packages they
 * import: `required` (statically, by JavaScript), `types` (by declarations only) and `dynamic` (only
 * through `import()`).
 */
export function closure(entry, dist = DIST) {
  const files = new Set();
  const required = new Set();
  const types = new Set();
  const dynamic = new Set();
  const queue = [`${entry}.js`, `${entry}.d.ts`];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (files.has(file)) continue;
    const absolute = path.join(dist, file);
    if (!existsSync(absolute))
      throw new Error(`dist/${file} is missing (reached from ${entry}): run \`npm run build\``);
    files.add(file);
    const found = importsOf(readFileSync(absolute, 'utf8'));
    const declaration = file.endsWith('.d.ts');
    for (const [kind, specifiers] of [
      ['static', found.static],
      ['dynamic', found.dynamic],
    ]) {
      for (const specifier of specifiers) {
        if (specifier.startsWith('.')) {
          const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
          const base = target.replace(/\.(d\.ts|js)$/, '');
          queue.push(`${base}.js`, `${base}.d.ts`);
        } else if (!isBuiltin(specifier)) {
          // In a declaration, `import("x").T` is a type reference like any other.
          (declaration ? types : kind === 'static' ? required : dynamic).add(packageOf(specifier));
        }
      }
    }
  }
  return {
    files: [...files].sort(),
    required,
    types: new Set([...types].filter((name) => !required.has(name))),
    dynamic: new Set([...dynamic].filter((name) => !required.has(name))),
  };
}

/** The runtime package's subpaths: `[subpath, entry in dist/ without extension]`, from the repository's exports. */
export function runtimeEntries(rootPackage) {
  return Object.entries(rootPackage.exports)
    .filter(([subpath]) => subpath !== '.' && subpath !== './package.json')
    .map(([subpath, target]) => {
      const file = typeof target === 'string' ? target : (target.default ?? target.import);
      if (typeof file !== 'string' || !file.startsWith('./dist/') || !file.endsWith('.js'))
        throw new Error(`package.json exports['${subpath}'] must point into ./dist/ at a .js file`);
      return [subpath === './runtime' ? '.' : subpath, file.slice('./dist/'.length, -'.js'.length)];
    });
}

/** The runtime package: its package.json and the files of dist/ it holds. */
export function runtimeManifest(rootPackage, name, dist = DIST) {
  const entries = runtimeEntries(rootPackage);
  if (!entries.some(([subpath]) => subpath === '.'))
    throw new Error("package.json exports has no './runtime': the runtime package needs its main entry");
  const isOptionalPeer = (dependency) => rootPackage.peerDependenciesMeta?.[dependency]?.optional === true;
  const files = new Set();
  const core = new Set();
  const optional = new Set();
  const exports = {};
  for (const [subpath, entry] of entries) {
    const reached = closure(entry, dist);
    const misplaced = reached.files.filter((file) =>
      CLI_ONLY.some((prefix) => file === prefix || file.startsWith(prefix)),
    );
    if (misplaced.length > 0)
      throw new Error(
        `the runtime entry ${subpath} (dist/${entry}.js) reaches modules of the CLI or the compiler: ${misplaced.join(', ')}`,
      );
    for (const file of reached.files) files.add(file);
    if (subpath === '.') {
      for (const dependency of reached.required) {
        if (isOptionalPeer(dependency))
          throw new Error(
            `the runtime's main entry imports '${dependency}' statically, which package.json makes an optional peer: import it with import(), or from a subpath of its own`,
          );
        core.add(dependency);
      }
      // Types the main entry's declarations use: a dependency, unless the package is an optional peer.
      for (const dependency of reached.types) (isOptionalPeer(dependency) ? optional : core).add(dependency);
    } else {
      for (const dependency of [...reached.required, ...reached.types]) optional.add(dependency);
    }
    for (const dependency of reached.dynamic) optional.add(dependency);
    exports[subpath] = { types: `./dist/${entry}.d.ts`, default: `./dist/${entry}.js` };
  }
  exports['./package.json'] = './package.json';
  for (const dependency of core) optional.delete(dependency);
  const unlisted = new Set([...optional].filter((dependency) => rootPackage.dependencies?.[dependency] !== undefined));
  for (const dependency of unlisted) optional.delete(dependency);
  const version = (dependency) => {
    const range =
      rootPackage.dependencies?.[dependency] ??
      rootPackage.peerDependencies?.[dependency] ??
      rootPackage.optionalDependencies?.[dependency];
    if (!range)
      throw new Error(
        `the runtime imports '${dependency}', which package.json lists in neither dependencies nor peerDependencies`,
      );
    return range;
  };
  const sorted = (names) => [...names].sort();
  const manifest = {
    name,
    version: rootPackage.version,
    description: `The runtime of toolgen: what generated tools import and run on (ChainExecutor, ToolRegistry, AuditContext). A production dependency; toolgen, the compiler, is a development one.`,
    type: 'module',
    license: rootPackage.license,
    engines: rootPackage.engines,
    exports,
    dependencies: Object.fromEntries(sorted(core).map((dependency) => [dependency, version(dependency)])),
    ...(optional.size > 0 && {
      peerDependencies: Object.fromEntries(sorted(optional).map((dependency) => [dependency, version(dependency)])),
      peerDependenciesMeta: Object.fromEntries(sorted(optional).map((dependency) => [dependency, { optional: true }])),
    }),
  };
  return { manifest, files: [...files].sort(), unlisted: sorted(unlisted) };
}

/** The CLI package's package.json: the repository's, without what only the repository needs. */
export function cliManifest(rootPackage, runtimeName) {
  const optionalPeers = { [runtimeName]: rootPackage.version, ...rootPackage.optionalDependencies };
  return {
    name: rootPackage.name,
    version: rootPackage.version,
    description: rootPackage.description,
    type: rootPackage.type,
    license: rootPackage.license,
    engines: rootPackage.engines,
    bin: rootPackage.bin,
    exports: { '.': rootPackage.exports['.'], './package.json': './package.json' },
    dependencies: rootPackage.dependencies,
    peerDependencies: optionalPeers,
    peerDependenciesMeta: Object.fromEntries(
      Object.keys(optionalPeers).map((dependency) => [dependency, { optional: true }]),
    ),
  };
}

function runtimeReadme(name, rootPackage, manifest, unlisted) {
  return `# ${name}

The runtime of [toolgen](https://www.npmjs.com/package/${rootPackage.name}): what the TypeScript that
\`npx toolgen\` generates imports and runs on (\`ChainExecutor\`, \`ToolRegistry\`, \`AuditContext\`).

\`\`\`sh
npm install ${name}   # production: what the app runs
npm install --save-dev ${rootPackage.name}   # development: the CLI and compiler that write generated/
\`\`\`

Subpaths: ${Object.keys(manifest.exports)
    .filter((subpath) => subpath !== './package.json')
    .map((subpath) => `\`${subpath === '.' ? name : `${name}/${subpath.slice(2)}`}\``)
    .join(', ')}.
A subpath that needs another package lists it as an optional peer dependency${
    unlisted.length > 0
      ? `, except these, which an app that
uses them in production adds to its own dependencies: ${unlisted.map((dependency) => `\`${dependency}\``).join(', ')}`
      : ''
  }.
The README of toolgen documents all of it.
`;
}

/** What an entry of `files` names: a path, or the files of a folder with one ending (`docs/*.md`). */
function named(entry) {
  const pattern = /^(.+)\/\*(\.[\w.]+)$/.exec(entry);
  if (!pattern) return [entry];
  const [, folder, ending] = pattern;
  return readdirSync(path.join(REPO, folder))
    .filter((name) => name.endsWith(ending))
    .map((name) => `${folder}/${name}`);
}

function copy(from, to) {
  mkdirSync(path.dirname(to), { recursive: true });
  cpSync(from, to, { recursive: true, filter: (file) => file !== UNPACKED });
}

/** `npm pack` of a staged folder into `out`: the report npm gives, one package. */
function npmPack(stage, out) {
  const stdout = execFileSync('npm', ['pack', stage, '--ignore-scripts', '--json', '--pack-destination', out], {
    cwd: REPO,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [report] = JSON.parse(stdout.slice(stdout.indexOf('[')));
  return {
    name: report.name,
    version: report.version,
    tarball: path.join(out, report.filename),
    size: report.size,
    unpackedSize: report.unpackedSize,
    files: report.files.map((file) => file.path).sort(),
  };
}

/**
 * Assembles and packs both packages into `out`.
 *
 * @example await pack('/tmp/packed') // [{ name: 'toolgen', tarball: '/tmp/packed/toolgen-0.1.0.tgz', … }, { name: '@toolgen/runtime', … }]
 */
export async function pack(out) {
  const rootPackage = readJson(path.join(REPO, 'package.json'));
  const runtimeName = await runtimeModuleName();
  const stage = mkdtempSync(path.join(os.tmpdir(), 'toolgen-pack-'));
  try {
    const cli = path.join(stage, 'cli');
    for (const file of rootPackage.files.flatMap(named)) copy(path.join(REPO, file), path.join(cli, file));
    writeFileSync(
      path.join(cli, 'package.json'),
      `${JSON.stringify(cliManifest(rootPackage, runtimeName), null, 2)}\n`,
    );

    const runtime = path.join(stage, 'runtime');
    const { manifest, files, unlisted } = runtimeManifest(rootPackage, runtimeName);
    for (const file of files) copy(path.join(DIST, file), path.join(runtime, 'dist', file));
    writeFileSync(path.join(runtime, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    writeFileSync(path.join(runtime, 'README.md'), runtimeReadme(runtimeName, rootPackage, manifest, unlisted));

    mkdirSync(out, { recursive: true });
    return [npmPack(cli, out), npmPack(runtime, out)];
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const outIndex = args.indexOf('--out');
  const out = path.resolve(outIndex === -1 ? path.join(REPO, 'packed') : args[outIndex + 1]);
  const packed = await pack(out);
  if (args.includes('--json')) console.log(JSON.stringify(packed, null, 2));
  else
    for (const entry of packed)
      console.log(
        `${entry.name}@${entry.version}: ${path.relative(process.cwd(), entry.tarball)} (${entry.files.length} files, ${(entry.unpackedSize / 1024).toFixed(0)} kB unpacked)`,
      );
}
