/**
 * `toolgen check` type-checks the modules it emits for other servers (`servers/*.ts`, `mcp-servers.ts`)
 * and HTTP APIs (`apis/*.ts`, `apis.ts`) as an app's `tsc --strict` will: their names come from
 * servers and documents the app does not control, and a name
 * the build failed to keep apart (two exports of one identifier) compiles nowhere, so check, which CI
 * runs, finds it before an app does. The build itself does not: it would load TypeScript for every
 * build. The verdict is kept in the build cache, by the modules' text and toolgen's version.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { diagnostic, type Diagnostic } from '../compiler/diagnostics/diagnostic.js';
import { HTTP_MODULE, MCP_CLIENT_MODULE, RUNTIME_MODULE } from '../compiler/emit/runtime-module.js';
import { apisPath, mcpServersPath } from '../compiler/layout.js';
import { VERSION } from './version.js';

export interface ServerTypes {
  readonly diagnostics: Diagnostic[];
  /** The modules' texts by file, for the diagnostics' code frames. */
  readonly sources: ReadonlyMap<string, string>;
}

/**
 * The type errors in the generated server modules under `outDir` (none when there are none, or when
 * the same texts passed before). `cacheDir`: where the verdict is kept; null (`--no-cache`) checks always.
 *
 * @example const { diagnostics } = await serverModuleTypes('/p/generated', '/p/node_modules/.cache/toolgen')
 */
export async function serverModuleTypes(outDir: string, cacheDir: string | null): Promise<ServerTypes> {
  const modules = serverModules(outDir);
  const sources = new Map(modules.map((module) => [module.file, module.text]));
  if (modules.length === 0) return { diagnostics: [], sources };
  const key = createHash('sha256').update(VERSION);
  for (const { file, text } of modules) key.update(`\0${path.relative(outDir, file)}\0${text}`);
  const digest = key.digest('hex');
  const record = cacheDir ? path.join(cacheDir, 'server-types.json') : null;
  if (record && passedBefore(record, digest)) return { diagnostics: [], sources };
  const { inProcess } = await import('../compiler/resolve/typescript.js');
  const problems = await inProcess.checkModules(modules, declarations());
  const diagnostics = problems.map((problem) =>
    diagnostic(
      'GENERATED_SERVER_TYPES',
      { detail: problem.message },
      { file: problem.file, line: problem.line, column: problem.column, length: 1 },
    ),
  );
  if (record && diagnostics.length === 0) {
    mkdirSync(path.dirname(record), { recursive: true });
    writeFileSync(record, `${JSON.stringify({ passed: digest })}\n`);
  }
  return { diagnostics, sources };
}

function serverModules(outDir: string): { file: string; text: string }[] {
  const files = [
    ...modulesBeside(path.join(outDir, 'servers'), mcpServersPath(outDir)),
    ...modulesBeside(path.join(outDir, 'apis'), apisPath(outDir)),
  ];
  return files.map((file) => ({ file, text: readFileSync(file, 'utf8') }));
}

/** The modules in `dir` (a server's or an API's each), and the module that says how to reach them; none when `dir` has none. */
function modulesBeside(dir: string, reach: string): string[] {
  const files = existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => name.endsWith('.ts'))
        .sort()
        .map((name) => path.join(dir, name))
    : [];
  if (files.length > 0 && existsSync(reach)) files.push(reach);
  return files;
}

function passedBefore(record: string, digest: string): boolean {
  try {
    return (JSON.parse(readFileSync(record, 'utf8')) as { passed?: unknown }).passed === digest;
  } catch {
    return false;
  }
}

/**
 * The declarations generated code is written against: this toolgen's own runtime, MCP client and HTTP APIs
 * (`dist/**\/*.d.ts` in the package; the sources when toolgen runs from them, as its tests do).
 */
function declarations(): Record<string, string> {
  const entry = (folder: string) => {
    const declared = fileURLToPath(new URL(`../${folder}/index.d.ts`, import.meta.url));
    return existsSync(declared) ? declared : fileURLToPath(new URL(`../${folder}/index.ts`, import.meta.url));
  };
  return {
    [RUNTIME_MODULE]: entry('runtime'),
    [MCP_CLIENT_MODULE]: entry('remote/client'),
    [HTTP_MODULE]: entry('remote/http'),
  };
}
