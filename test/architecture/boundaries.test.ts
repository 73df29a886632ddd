/**
 * The architecture, as rules a change cannot break unnoticed: what may import what, and no cycles.
 * Imports are read from the source text (static, type-only, re-exports and dynamic `import()`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
/** The compiler's stages, in pipeline order. */
const STAGES = ['load', 'validate', 'resolve', 'check', 'lower', 'emit', 'write'] as const;

interface SourceModule {
  /** Path relative to src, with forward slashes: `compiler/check/flow.ts`. */
  readonly file: string;
  /** Modules inside src it imports, same form. */
  readonly imports: readonly string[];
  /** Those of them it imports only through `import()`, and only so. */
  readonly lazy: readonly string[];
  /** Package names it imports. */
  readonly packages: readonly string[];
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function readModules(): SourceModule[] {
  const files = (readdirSync(SRC, { recursive: true }) as string[])
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.split(path.sep).join('/'));
  return files.sort().map((file) => {
    const text = readFileSync(path.join(SRC, file), 'utf8');
    const imports: string[] = [];
    const eager = new Set<string>();
    const packages: string[] = [];
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2]!;
      if (specifier.startsWith('.')) {
        const target = path.posix
          .normalize(path.posix.join(path.posix.dirname(file), specifier))
          .replace(/\.js$/, '.ts');
        imports.push(target);
        if (match[1] !== undefined) eager.add(target);
      } else packages.push(specifier);
    }
    return { file, imports, lazy: imports.filter((target) => !eager.has(target)), packages };
  });
}

const modules = readModules();
/** A top folder of src, or a part of `remote/` (`remote/lock`): each side of the other servers is an area of its own. */
const area = (file: string) => {
  const [top, sub] = file.split('/');
  return top === 'remote' && sub !== undefined && !sub.endsWith('.ts') ? `remote/${sub}` : top!.replace(/\.ts$/, '');
};

const stageOf = (file: string) =>
  file.startsWith('compiler/') ? (STAGES as readonly string[]).indexOf(file.split('/')[1]!) : -1;

function violations(rule: (from: string, to: string) => boolean): string[] {
  return modules.flatMap((module) =>
    module.imports.filter((target) => rule(module.file, target)).map((target) => `${module.file} → ${target}`),
  );
}

describe('boundaries', () => {
  it('reads every module and finds its imports', () => {
    expect(modules.length).toBeGreaterThan(40);
    const executor = modules.find((module) => module.file === 'runtime/executor.ts')!;
    expect(executor.imports).toContain('language/plan.ts');
    for (const module of modules)
      for (const target of module.imports)
        expect(
          modules.some((m) => m.file === target),
          `${module.file} imports ${target}`,
        ).toBe(true);
  });

  it('the shared language imports nothing of toolgen but itself', () => {
    expect(violations((from, to) => area(from) === 'language' && area(to) !== 'language')).toEqual([]);
  });

  it('the runtime never imports the compiler or the CLI', () => {
    expect(
      violations((from, to) => area(from) === 'runtime' && area(to) !== 'runtime' && area(to) !== 'language'),
    ).toEqual([]);
  });

  it('the compiler never imports the runtime or the CLI', () => {
    expect(
      violations((from, to) => area(from) === 'compiler' && (area(to) === 'runtime' || area(to) === 'cli')),
    ).toEqual([]);
  });

  it('the MCP server (serve/, @toolgen/runtime/mcp) uses only the public entry of the runtime, and the language', () => {
    expect(
      violations(
        (from, to) =>
          area(from) === 'serve' && area(to) !== 'serve' && area(to) !== 'language' && to !== 'runtime/index.ts',
      ),
    ).toEqual([]);
  });

  it("DBOS lives in @toolgen/runtime/dbos alone: it uses the runtime's public entry, and nothing else imports it or its packages but the CLI, lazily", () => {
    expect(violations((from, to) => area(from) === 'dbos' && area(to) !== 'dbos' && to !== 'runtime/index.ts')).toEqual(
      [],
    );
    // `toolgen studio --dbos` imports the public entry when it runs, so no other command loads DBOS.
    const lazyEntry = (from: string, to: string) =>
      area(from) === 'cli' &&
      to === 'dbos/index.ts' &&
      modules.find((module) => module.file === from)!.lazy.includes(to);
    expect(violations((from, to) => area(to) === 'dbos' && area(from) !== 'dbos' && !lazyEntry(from, to))).toEqual([]);
    expect([...new Set(violations(lazyEntry))]).toEqual(['cli/studio-store.ts → dbos/index.ts']);
    // The plain runtime installs without them: they are optional peer dependencies of @toolgen/runtime/dbos.
    const users = modules.filter((module) =>
      module.packages.some((name) => name.startsWith('@dbos-inc/') || name === 'pg' || name.startsWith('pg/')),
    );
    expect(users.length).toBeGreaterThan(0);
    expect(users.filter((module) => area(module.file) !== 'dbos').map((module) => module.file)).toEqual([]);
    const manifest = JSON.parse(readFileSync(path.join(SRC, '../package.json'), 'utf8'));
    for (const name of ['@dbos-inc/dbos-sdk', 'pg']) {
      expect(manifest.dependencies[name], name).toBeUndefined();
      expect(manifest.peerDependenciesMeta[name], name).toEqual({ optional: true });
    }
    expect(manifest.exports['./dbos'].default).toBe('./dist/dbos/index.js');
  });

  it('the studio (@toolgen/runtime/studio) uses only the public entry of the runtime and no package; only the CLI imports it', () => {
    expect(
      violations((from, to) => area(from) === 'studio' && area(to) !== 'studio' && to !== 'runtime/index.ts'),
    ).toEqual([]);
    expect(violations((from, to) => area(to) === 'studio' && area(from) !== 'studio' && area(from) !== 'cli')).toEqual(
      [],
    );
    expect(
      modules
        .filter((module) => area(module.file) === 'studio')
        .flatMap((module) => module.packages.filter((name) => !name.startsWith('node:'))),
    ).toEqual([]);
  });

  it("migrate reads old YAML with the loader, the compiler's name derivation and input schema, and the shared language only, and only the CLI imports it", () => {
    const allowed = (to: string) =>
      area(to) === 'migrate' ||
      area(to) === 'language' ||
      to.startsWith('compiler/load/') ||
      to === 'compiler/names.ts' ||
      to === 'compiler/resolve/parameters.ts';
    expect(violations((from, to) => area(from) === 'migrate' && !allowed(to))).toEqual([]);
    expect(
      violations(
        (from, to) => area(to) === 'migrate' && area(from) !== 'migrate' && !['cli', 'arazzo'].includes(area(from)),
      ),
    ).toEqual([]);
  });

  it("arazzo reads documents with the API pull's reader and reports as migrate does; only the CLI imports it", () => {
    const allowed = (to: string) =>
      ['arazzo', 'language', 'migrate', 'remote/pull', 'remote/lock'].includes(area(to)) ||
      to === 'compiler/load/nesting.ts' ||
      to === 'compiler/load/find.ts' ||
      to === 'compiler/session/config-file.ts';
    expect(violations((from, to) => area(from) === 'arazzo' && !allowed(to))).toEqual([]);
    expect(violations((from, to) => area(to) === 'arazzo' && area(from) !== 'arazzo' && area(from) !== 'cli')).toEqual(
      [],
    );
  });

  /**
   * The other servers toolgen calls (`remote/`), one part a side: what each part may import besides
   * itself and the language, and which parts of toolgen may import it. An HTTP API pinned from an
   * OpenAPI document joins these parts; its calls at run time are `http/`.
   */
  const REMOTE: Record<string, { readonly uses: (to: string) => boolean; readonly usedBy: readonly string[] }> = {
    // What a server is: as written (the runtime's connections take it too), resolved, read from the config.
    'remote/declare': { uses: (to) => to === 'remote/lock/format.ts', usedBy: ['compiler', 'cli'] },
    // The lock: written by the pull, read by the compiler (and the language server, which watches it).
    'remote/lock': { uses: () => false, usedBy: ['compiler', 'lsp', 'cli', 'arazzo'] },
    // The one connection layer: the pull and the app's connections both connect through it.
    'remote/connect': { uses: (to) => area(to) === 'remote/declare', usedBy: [] },
    // @toolgen/runtime/mcp-client: the app's connections, on the runtime's public entry only.
    'remote/client': {
      uses: (to) => to === 'runtime/index.ts' || ['remote/declare', 'remote/connect'].includes(area(to)),
      usedBy: [],
    },
    // @toolgen/runtime/http: the app's HTTP APIs, on the runtime's public entry only (fetch is Node's).
    'remote/http': { uses: (to) => to === 'runtime/index.ts', usedBy: [] },
    // `toolgen mcp pull` and `diff`: the CLI's, printing as the CLI prints (and Arazzo import reads its sources with it).
    'remote/pull': {
      uses: (to) =>
        ['remote/declare', 'remote/lock', 'remote/connect'].includes(area(to)) ||
        to === 'compiler/diagnostics/printable.ts',
      usedBy: ['cli', 'arazzo'],
    },
  };

  it.each(Object.entries(REMOTE))('%s imports only what its side needs, and only its users import it', (part, rule) => {
    expect(modules.some((module) => area(module.file) === part)).toBe(true);
    expect(
      violations((from, to) => area(from) === part && area(to) !== part && area(to) !== 'language' && !rule.uses(to)),
    ).toEqual([]);
    // Another part may import it when its own rule lets it (the pull uses the connection layer).
    const user = (from: string, to: string) =>
      rule.usedBy.includes(area(from)) || (REMOTE[area(from)]?.uses(to) ?? false);
    expect(violations((from, to) => area(to) === part && area(from) !== part && !user(from, to))).toEqual([]);
  });

  it("the OpenAPI reader (remote/pull/openapi/) is the API pull's alone: it reads the lock's format and the language, and only the pull imports it", () => {
    const reader = (file: string) => file.startsWith('remote/pull/openapi/');
    expect(modules.some((module) => reader(module.file))).toBe(true);
    expect(
      violations(
        (from, to) => reader(from) && !reader(to) && area(to) !== 'language' && !to.startsWith('remote/lock/'),
      ),
    ).toEqual([]);
    expect(violations((from, to) => reader(to) && !reader(from) && area(from) !== 'remote/pull')).toEqual([]);
  });

  it('nothing of the runtime, the language or the MCP server imports remote/: apps without remote tools never load the SDK', () => {
    expect(
      violations(
        (from, to) =>
          to.startsWith('remote/') && ['runtime', 'language', 'serve', 'dbos', 'studio'].includes(area(from)),
      ),
    ).toEqual([]);
    expect(
      modules.filter((module) => module.file.startsWith('remote/') && !area(module.file).startsWith('remote/')),
    ).toEqual([]);
  });

  it('the compiler reads only what a server is and its pins, never connects', () => {
    expect(
      violations(
        (from, to) =>
          area(from) === 'compiler' &&
          to.startsWith('remote/') &&
          !['remote/declare', 'remote/lock'].includes(area(to)),
      ),
    ).toEqual([]);
  });

  it('only the connection layer and the client import the MCP client package', () => {
    const clients = modules.filter((module) =>
      module.packages.some((name) => name.startsWith('@modelcontextprotocol/client')),
    );
    expect(clients.length).toBeGreaterThan(0);
    expect(
      clients
        .filter((module) => !['remote/connect', 'remote/client'].includes(area(module.file)))
        .map((module) => module.file),
    ).toEqual([]);
  });

  it('the language server (lsp/) reads projects through the compiler, the language and the lock format; only the CLI imports it, and only it speaks the protocol', () => {
    const allowed = (to: string) =>
      ['lsp', 'compiler', 'language'].includes(area(to)) || to === 'remote/lock/format.ts';
    expect(violations((from, to) => area(from) === 'lsp' && !allowed(to))).toEqual([]);
    expect(violations((from, to) => area(to) === 'lsp' && area(from) !== 'lsp' && area(from) !== 'cli')).toEqual([]);
    const speakers = modules.filter((module) => module.packages.some((name) => name.startsWith('vscode-')));
    expect(speakers.length).toBeGreaterThan(0);
    expect(speakers.filter((module) => area(module.file) !== 'lsp').map((module) => module.file)).toEqual([]);
  });

  it('no stage imports a later stage', () => {
    expect(violations((from, to) => stageOf(from) >= 0 && stageOf(to) > stageOf(from))).toEqual([]);
  });

  it('emit reads no stage but the lowered units it is given', () => {
    expect(
      violations(
        (from, to) =>
          stageOf(from) === STAGES.indexOf('emit') &&
          stageOf(to) >= 0 &&
          stageOf(to) !== STAGES.indexOf('emit') &&
          to !== 'compiler/lower/unit.ts',
      ),
    ).toEqual([]);
  });

  it('the runtime and the compiler do not touch the disk from emit or check', () => {
    const disk = modules.filter(
      (module) =>
        [STAGES.indexOf('check'), STAGES.indexOf('lower'), STAGES.indexOf('emit')].includes(stageOf(module.file)) &&
        module.packages.some((name) => /^(node:)?fs(\/promises)?$/.test(name)),
    );
    expect(disk.map((module) => module.file)).toEqual([]);
  });

  it('nothing imports an agent framework: the generated adapters do, and the frameworks are the app’s dependencies', () => {
    const framework = /^((ai|langchain)(\/|$)|@langchain\/|@openai\/agents|@mastra\/)/;
    const users = modules.filter((module) => module.packages.some((name) => framework.test(name)));
    expect(users.map((module) => module.file)).toEqual([]);
  });

  it('nothing imports @opentelemetry/api: the app hands its own tracer in, so spans reach the SDK it registered', () => {
    const tracing = modules.filter((module) => module.packages.some((name) => name.startsWith('@opentelemetry/')));
    expect(tracing.map((module) => module.file)).toEqual([]);
  });

  it('the CLI entry loads no compiler before a command runs: --version and --help stay fast', () => {
    // Static imports only (dynamic ones run when a command does); type-only imports cost nothing at run time.
    const STATIC = /(?:^|\n)\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\s+from\s+)?['"](\.[^'"]+)['"]/g;
    const loaded = new Set<string>();
    const visit = (file: string): void => {
      if (loaded.has(file)) return;
      loaded.add(file);
      const text = readFileSync(path.join(SRC, file), 'utf8');
      for (const match of text.matchAll(STATIC))
        visit(path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1]!)).replace(/\.js$/, '.ts'));
    };
    visit('cli/bin.ts');
    expect(
      [...loaded].filter((file) => area(file) === 'compiler' && !file.startsWith('compiler/diagnostics/')).sort(),
    ).toEqual([]);
  });

  it('there are no import cycles, type-only imports included', () => {
    const graph = new Map(modules.map((module) => [module.file, module.imports]));
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const trail: string[] = [];
    const visit = (file: string): void => {
      state.set(file, 'open');
      trail.push(file);
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === 'open') cycles.push([...trail.slice(trail.indexOf(next)), next].join(' → '));
        else if (!state.has(next)) visit(next);
      }
      trail.pop();
      state.set(file, 'done');
    };
    for (const file of graph.keys()) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });

  it('generated code can reach only the runtime entry: its index exports nothing of the compiler', () => {
    const index = modules.find((module) => module.file === 'runtime/index.ts')!;
    expect(index.imports.every((target) => area(target) === 'runtime' || area(target) === 'language')).toBe(true);
  });
});
