/**
 * scripts/pack.mjs: what goes into the runtime package, decided from package.json and from what the
 * modules of dist/ import. On a small dist/ of its own, shaped like the repository's (and like the
 * subpaths still to come: one with an optional peer, one that imports its package through `import()`),
 * and on the repository's real dist/.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUNTIME_MODULE } from '../../src/compiler/emit/runtime-module.js';

interface Manifest {
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional: boolean }>;
}
interface PackScript {
  runtimeManifest(
    rootPackage: object,
    name: string,
    dist?: string,
  ): { manifest: Manifest; files: string[]; unlisted: string[] };
  cliManifest(rootPackage: object, runtimeName: string): Manifest & { scripts?: unknown; devDependencies?: unknown };
}

const REPO = path.resolve(import.meta.dirname, '../..');
const script = (await import(path.join(REPO, 'scripts/pack.mjs') as string)) as PackScript;

const ROOT_PACKAGE = {
  name: 'toolgen',
  version: '1.2.3',
  license: 'MIT',
  engines: { node: '>=20.12' },
  exports: {
    '.': { types: './dist/index.d.ts', default: './dist/index.js' },
    './runtime': { types: './dist/runtime/index.d.ts', default: './dist/runtime/index.js' },
    './mcp': { types: './dist/mcp/index.d.ts', default: './dist/mcp/index.js' },
    './dbos': { types: './dist/dbos/index.d.ts', default: './dist/dbos/index.js' },
    './package.json': './package.json',
  },
  scripts: { prepare: 'npm run build' },
  dependencies: { ajv: '^8.0.0', jsonata: '^2.0.0', '@modelcontextprotocol/server': '^2.4.0', 'ts-morph': '^28.0.0' },
  peerDependencies: { '@dbos-inc/dbos-sdk': '^3.0.0', '@opentelemetry/api': '^1.9.0' },
  peerDependenciesMeta: { '@dbos-inc/dbos-sdk': { optional: true }, '@opentelemetry/api': { optional: true } },
  optionalDependencies: { tsx: '^4.0.0' },
  devDependencies: { vitest: '^4.0.0' },
};

/** A dist/ as tsc writes it: `.js` with the imports that remain, `.d.ts` with the type-only ones too. */
const DIST: Record<string, string> = {
  'index.js': "export { compile } from './compiler/compile.js';\n",
  'index.d.ts': "export { compile } from './compiler/compile.js';\n",
  'compiler/compile.js':
    "import { Project } from 'ts-morph';\nimport { plan } from '../language/plan.js';\nexport const compile = () => [Project, plan];\n",
  'compiler/compile.d.ts': 'export declare const compile: () => unknown[];\n',
  'runtime/index.js': "export { ChainExecutor } from './executor.js';\nimport 'node:crypto';\n",
  'runtime/index.d.ts':
    "export { ChainExecutor } from './executor.js';\nexport type { Plan } from '../language/plan.js';\n",
  'runtime/executor.js': [
    "import Ajv from 'ajv';",
    "import { createHash } from 'node:crypto';",
    'import {',
    '  evaluate,',
    '  compileExpression as compile',
    "} from './expressions.js';",
    "export class ChainExecutor { tracer() { return import('@opentelemetry/api'); } }",
    'void Ajv; void createHash; void evaluate; void compile;',
    '',
  ].join('\n'),
  'runtime/executor.d.ts':
    "export declare class ChainExecutor { tracer(): Promise<typeof import('@opentelemetry/api')>; #private; }\n",
  'runtime/expressions.js':
    "import jsonata from 'jsonata';\nexport const evaluate = jsonata;\nexport const compileExpression = jsonata;\n",
  'runtime/expressions.d.ts':
    'export declare const evaluate: unknown;\nexport declare const compileExpression: unknown;\n',
  'language/plan.js': 'export const plan = 1;\n',
  'language/plan.d.ts': 'export declare const plan = 1;\nexport type Plan = { steps: unknown[] };\n',
  'mcp/index.js':
    "import { McpServer } from '@modelcontextprotocol/server';\nimport { ChainExecutor } from '../runtime/index.js';\nexport const serve = () => [McpServer, ChainExecutor];\n",
  'mcp/index.d.ts': 'export declare const serve: () => unknown[];\n',
  'dbos/index.js':
    "import { DBOS } from '@dbos-inc/dbos-sdk';\nexport { ChainExecutor } from '../runtime/index.js';\nexport const durable = DBOS;\n",
  'dbos/index.d.ts': "export { ChainExecutor } from '../runtime/index.js';\nexport declare const durable: unknown;\n",
};

let dist = '';
beforeAll(() => {
  dist = mkdtempSync(path.join(os.tmpdir(), 'toolgen-pack-'));
  for (const [file, text] of Object.entries(DIST)) {
    mkdirSync(path.dirname(path.join(dist, file)), { recursive: true });
    writeFileSync(path.join(dist, file), text);
  }
});
afterAll(() => rmSync(dist, { recursive: true, force: true }));

describe('the runtime package', () => {
  it("takes the repository's exports other than . as its subpaths, ./runtime becoming its .", () => {
    const { manifest } = script.runtimeManifest(ROOT_PACKAGE, '@toolgen/runtime', dist);
    expect(manifest.exports).toEqual({
      '.': { types: './dist/runtime/index.d.ts', default: './dist/runtime/index.js' },
      './mcp': { types: './dist/mcp/index.d.ts', default: './dist/mcp/index.js' },
      './dbos': { types: './dist/dbos/index.d.ts', default: './dist/dbos/index.js' },
      './package.json': './package.json',
    });
  });

  it('holds the modules its entries reach, multi-line and type-only imports followed, and none of the compiler', () => {
    const { files } = script.runtimeManifest(ROOT_PACKAGE, '@toolgen/runtime', dist);
    expect(files).toEqual(
      Object.keys(DIST)
        .filter((file) => !file.startsWith('index.') && !file.startsWith('compiler/'))
        .sort(),
    );
  });

  it("makes what the main entry imports a dependency, what only a subpath or an import() needs an optional peer, and leaves the CLI's own dependencies to the app", () => {
    const { manifest, unlisted } = script.runtimeManifest(ROOT_PACKAGE, '@toolgen/runtime', dist);
    expect(manifest.dependencies).toEqual({ ajv: '^8.0.0', jsonata: '^2.0.0' });
    expect(manifest.peerDependencies).toEqual({ '@dbos-inc/dbos-sdk': '^3.0.0', '@opentelemetry/api': '^1.9.0' });
    expect(manifest.peerDependenciesMeta).toEqual({
      '@dbos-inc/dbos-sdk': { optional: true },
      '@opentelemetry/api': { optional: true },
    });
    // The CLI depends on the MCP SDK: as an optional peer of the runtime, npm would keep it in every production install.
    expect(unlisted).toEqual(['@modelcontextprotocol/server']);
  });

  it('refuses an entry that reaches the compiler, an optional peer the main entry cannot run without, and an import package.json does not list', () => {
    const reachesCompiler = {
      ...ROOT_PACKAGE,
      exports: { ...ROOT_PACKAGE.exports, './everything': { default: './dist/index.js' } },
    };
    expect(() => script.runtimeManifest(reachesCompiler, '@toolgen/runtime', dist)).toThrow(
      /the runtime entry \.\/everything \(dist\/index\.js\) reaches modules of the CLI or the compiler: compiler\/compile\.d\.ts, compiler\/compile\.js/,
    );
    const staticOptional = {
      ...ROOT_PACKAGE,
      peerDependencies: { ...ROOT_PACKAGE.peerDependencies, jsonata: '^2.0.0' },
      peerDependenciesMeta: { ...ROOT_PACKAGE.peerDependenciesMeta, jsonata: { optional: true } },
    };
    expect(() => script.runtimeManifest(staticOptional, '@toolgen/runtime', dist)).toThrow(
      /the runtime's main entry imports 'jsonata' statically, which package\.json makes an optional peer/,
    );
    const { jsonata: _unused, ...withoutJsonata } = ROOT_PACKAGE.dependencies;
    expect(() =>
      script.runtimeManifest({ ...ROOT_PACKAGE, dependencies: withoutJsonata }, '@toolgen/runtime', dist),
    ).toThrow(/imports 'jsonata', which package\.json lists/);
  });

  it("on the repository's dist/: the runtime, the agents and MCP, depending on ajv, jsonata and re2js only", () => {
    const rootPackage = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as typeof ROOT_PACKAGE;
    const { manifest, files, unlisted } = script.runtimeManifest(rootPackage, RUNTIME_MODULE);
    // The MCP SDK (./mcp, ./mcp-client) is the CLI's dependency too: left undeclared, as the header of pack.mjs says.
    expect(unlisted).toEqual(expect.arrayContaining(['@modelcontextprotocol/client', '@modelcontextprotocol/server']));
    expect(Object.keys(manifest.exports)).toEqual(
      expect.arrayContaining(['.', './agents', './mcp', './mcp-client', './package.json']),
    );
    expect(manifest.dependencies).toEqual({
      ajv: rootPackage.dependencies.ajv,
      jsonata: rootPackage.dependencies.jsonata,
      re2js: (rootPackage.dependencies as Record<string, string>)['re2js'],
    });
    expect(files.filter((file) => /^(compiler|cli|migrate)\//.test(file))).toEqual([]);
    expect(files).toEqual(
      expect.arrayContaining([
        'runtime/index.js',
        'runtime/index.d.ts',
        'language/plan.js',
        'serve/index.js',
        'remote/client/index.js',
      ]),
    );
  });
});

describe('the CLI package', () => {
  it("keeps the repository's dependencies, and nothing only the repository needs; tsx and the runtime are optional peers", () => {
    const manifest = script.cliManifest(ROOT_PACKAGE, '@toolgen/runtime');
    expect(manifest.scripts).toBeUndefined();
    expect(manifest.devDependencies).toBeUndefined();
    expect(manifest.exports).toEqual({ '.': ROOT_PACKAGE.exports['.'], './package.json': './package.json' });
    expect(manifest.dependencies).toEqual(ROOT_PACKAGE.dependencies);
    expect(manifest.peerDependencies).toEqual({ '@toolgen/runtime': '1.2.3', tsx: '^4.0.0' });
    expect(manifest.peerDependenciesMeta).toEqual({ '@toolgen/runtime': { optional: true }, tsx: { optional: true } });
  });
});
