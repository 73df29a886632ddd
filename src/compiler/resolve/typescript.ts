/**
 * Where TypeScript runs for a build. Loading it (ts-morph) takes longer than parsing hundreds of YAML
 * files, and a cold build needs it (handler exports, handler type checks): `typeScriptWorker()` starts
 * a worker thread that loads it at once, on another core, while the compiler parses the YAML, and
 * answers from there. `inProcess` loads it in the compiler's own thread on the first question, for
 * builds that will likely ask none (their answers are cached) and where there is no compiled worker
 * (toolgen's own tests run from source).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { HandlerCheck, PendingCheck } from './handler-check.js';
import type { EmittedModule, ModuleProblem } from './typescript-work.js';

export interface TypeScriptHost {
  /** The names a module exports, from its syntax; 'unknown' for `export *`. */
  exportsOf(file: string, text: string): Promise<ReadonlySet<string> | 'unknown'>;
  /** Each handler checked against its signature, in one program. */
  checkSignatures(pending: readonly PendingCheck[]): Promise<[string, HandlerCheck][]>;
  /** Generated modules type-checked under `--strict`, the packages they import resolved by `paths`. */
  checkModules(modules: readonly EmittedModule[], paths: Readonly<Record<string, string>>): Promise<ModuleProblem[]>;
  /** Lets the host go (a worker ends, and its memory with it); a build closes the host it was given once it has asked its last question. */
  close(): Promise<void>;
}

type Work = typeof import('./typescript-work.js');
let loaded: Promise<Work> | null = null;
const work = () => (loaded ??= import('./typescript-work.js'));

/** TypeScript in this thread, loaded on the first question. */
export const inProcess: TypeScriptHost = {
  exportsOf: async (file, text) => (await work()).listExports(file, text),
  checkSignatures: async (pending) => (await work()).checkSignatures(pending),
  checkModules: async (modules, paths) => (await work()).checkModules(modules, paths),
  close: async () => {},
};

/** A question to the worker, and its answer: plain data, as structured clone carries it. */
export type Question =
  | { readonly kind: 'exports'; readonly file: string; readonly text: string }
  | { readonly kind: 'check'; readonly pending: readonly PendingCheck[] }
  | {
      readonly kind: 'modules';
      readonly modules: readonly EmittedModule[];
      readonly paths: Readonly<Record<string, string>>;
    };
export type WorkerRequest = { readonly id: number } & Question;
export type WorkerReply = { readonly id: number } & (
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string }
);

const WORKER = new URL('./typescript-worker.js', import.meta.url);

/**
 * TypeScript in a worker thread, started now; `inProcess` where there is no compiled worker module.
 *
 * @example const host = typeScriptWorker(); … await host.checkSignatures(pending); await host.close();
 */
export function typeScriptWorker(): TypeScriptHost {
  if (!existsSync(fileURLToPath(WORKER))) return inProcess;
  const worker = new Worker(WORKER);
  // It never keeps the process alive: a build that asks nothing ends without waiting for it.
  worker.unref();
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let failure: Error | null = null;
  const failAll = (error: Error) => {
    failure ??= error;
    for (const { reject } of waiting.values()) reject(error);
    waiting.clear();
  };
  worker.on('message', (reply: WorkerReply) => {
    const pending = waiting.get(reply.id);
    waiting.delete(reply.id);
    if (waiting.size === 0) worker.unref();
    if (reply.ok) pending?.resolve(reply.value);
    else pending?.reject(new Error(reply.message));
  });
  worker.on('error', failAll);
  worker.on('exit', (code) => failAll(new Error(`the TypeScript worker stopped (exit code ${code})`)));
  let next = 0;
  const ask = <T>(request: Question): Promise<T> => {
    if (failure) return Promise.reject(failure);
    const id = (next += 1);
    worker.ref();
    return new Promise<T>((resolve, reject) => {
      waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ ...request, id });
    });
  };
  return {
    exportsOf: (file, text) => ask({ kind: 'exports', file, text }),
    checkSignatures: (pending) => ask({ kind: 'check', pending }),
    checkModules: (modules, paths) => ask({ kind: 'modules', modules, paths }),
    close: async () => {
      await worker.terminate();
    },
  };
}
