/**
 * The build cache as the commands use it (`src/compiler/cache/build-cache.ts` holds the rules): open
 * it before a build, save what the build found after it. `--no-cache` turns both off. It is checked
 * before the compiler loads at all: a hit replays the diagnostics and loads no parser, validator or
 * template engine.
 */
import type { Compiler, CompilerOptions, StreamedBuild } from '../compiler/compile.js';
import type { PlannedFile } from '../compiler/write/files.js';
import {
  CACHE_FORMAT,
  defaultCacheDir,
  fingerprint,
  handlerExportsOf,
  handlerInputs,
  matches,
  readRecord,
  stamps,
  store,
  storedHandlerExports,
  type CacheRecord,
  type Fingerprint,
  type Stamp,
} from '../compiler/cache/build-cache.js';
import { VERSION } from './version.js';

export interface OpenCache {
  readonly dir: string;
  readonly fingerprint: Fingerprint;
  /** The stored record when it is one for exactly this run's inputs. */
  readonly hit: CacheRecord | null;
  /** The stored record, whatever it is for: its handler facts are keyed by content and still good. */
  readonly previous: CacheRecord | null;
}

/** Reads the inputs and the stored record; null with `--no-cache`. */
export async function openCache(settings: CompilerOptions, enabled: boolean): Promise<OpenCache | null> {
  if (!enabled) return null;
  const dir = defaultCacheDir(settings.root);
  const current = await fingerprint(settings, VERSION);
  const previous = readRecord(dir);
  return { dir, fingerprint: current, hit: matches(previous, current) ? previous : null, previous };
}

/** How many YAML files make it worth loading TypeScript in a worker beside them (below, the worker's start costs more than it saves). */
export const WORKER_FROM_FILES = 200;

/**
 * A compiler that starts from what the cache knows of the handler modules (so TypeScript parses and
 * type-checks only changed ones). For one build (`once`) with nothing cached, TypeScript will surely
 * be needed: with enough YAML to parse meanwhile, it is loaded in a worker thread from the start.
 */
export async function newCompiler(
  settings: CompilerOptions,
  cache: OpenCache | null,
  { once = false }: { readonly once?: boolean } = {},
): Promise<Compiler> {
  const { Compiler } = await import('../compiler/compile.js');
  const cold = once && settings.checkHandlerTypes !== false && (cache === null || cache.previous === null);
  const { typeScriptWorker } = cold ? await import('../compiler/resolve/typescript.js') : { typeScriptWorker: null };
  return new Compiler(settings, {
    handlerExports: handlerExportsOf(cache?.previous ?? null),
    handlerChecks: new Map(Object.entries(cache?.previous?.handlerChecks ?? {})),
    ...(cache ? { texts: cache.fingerprint.textsByFile } : {}),
    ...(typeScriptWorker
      ? { typescriptFor: (files: number) => (files >= WORKER_FROM_FILES ? typeScriptWorker() : undefined) }
      : {}),
  });
}

/**
 * Stores what a full build found. `outputs`: the files the build planned (`planned`, each with its size
 * and, if recent, its text) when they are known to be on disk as planned (it wrote them, or `check`
 * compared them); otherwise null.
 */
export function saveCache(
  cache: OpenCache | null,
  compiler: Compiler,
  result: StreamedBuild,
  outputs: { readonly planned: ReadonlyMap<string, PlannedFile> } | null,
): void {
  if (!cache) return;
  // The types a handler imports decide its check (TG2009) as much as its own text does.
  const handlers = handlerInputs(
    [...compiler.handlerModules(), ...compiler.handlerDependencies()],
    compiler.handlerExports,
  );
  const record: CacheRecord = {
    format: CACHE_FORMAT,
    key: cache.fingerprint.key,
    sources: cache.fingerprint.sources,
    handlers,
    handlerExports: storedHandlerExports(compiler.handlerExports, handlers),
    handlerChecks: Object.fromEntries(compiler.handlerChecks()),
    diagnostics: result.diagnostics,
    built: result.built.length,
    // Read only beside `outputs` (`check`'s up-to-date count); without them, the file the build held, its index.
    files: outputs?.planned.size ?? (result.index ? 1 : 0),
    outputs:
      outputs === null
        ? null
        : (stamps([...outputs.planned.keys(), ...result.keep], outputs.planned) as Record<string, Stamp>),
  };
  store(cache.dir, record);
}
