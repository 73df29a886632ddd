/**
 * Whether a function tool's handler takes and returns what its YAML says, asked of TypeScript's type
 * checker (`typescript-work.ts`: a probe module beside the handler assigns it to the handler type the
 * generated module will need). A pure function of the handler's text (and what it imports) and the
 * signature, so results are cached by `handlerCheckKey` (`sharedHandlerChecks`: one per process,
 * bounded, the least recently used out first; the build cache keeps them across runs); TypeScript is
 * asked only when something must be checked.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { HandlerCheck, HandlerSignature, PendingCheck } from './handler-check.js';
import { inProcess, type TypeScriptHost } from './typescript.js';

/** Results by `handlerCheckKey`; a build cache may hold them across runs. */
export type HandlerCheckCache = Map<string, HandlerCheck>;

const hash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

/**
 * The cache key of a check: the handler's path and text, its export, and the types it is held to.
 *
 * @example handlerCheckKey(signature) // '3f1c…' (32 hex digits)
 */
export function handlerCheckKey(signature: HandlerSignature): string {
  // Not the path: the same handler text checks the same anywhere, as long as what it imports (relative to it) is the same.
  return hash(
    JSON.stringify([path.basename(signature.file), signature.text, signature.exportName, signature.declarations]),
  );
}

/** Results shared by every compiler in the process: they depend only on contents, never on which build asked. */
export const sharedHandlerChecks: HandlerCheckCache = new Map();

/**
 * How many results a cache keeps: every handler edit in a long watch makes a new key. Far more than a
 * project has handlers (a result is a few hundred bytes), so that one build's results all stay until
 * it reads them: a cold build asks TypeScript about every handler first, then reads the answers here.
 */
export const MAX_HANDLER_CHECKS = 10_000;

/**
 * Keeps a result, least recently used first, forgetting the oldest past `max`.
 *
 * @example remember(cache, key, check) // cache.size <= MAX_HANDLER_CHECKS
 */
export function remember(cache: HandlerCheckCache, key: string, check: HandlerCheck, max = MAX_HANDLER_CHECKS): void {
  cache.delete(key);
  cache.set(key, check);
  for (const oldest of cache.keys()) {
    if (cache.size <= max) break;
    cache.delete(oldest);
  }
}

/** Whether a cached result still holds for this handler: the files it imports are as they were. */
function fresh(check: HandlerCheck, handlerFile: string): boolean {
  return check.dependencies.every((dependency) => {
    try {
      return hash(readFileSync(path.resolve(path.dirname(handlerFile), dependency.file), 'utf8')) === dependency.hash;
    } catch {
      return false;
    }
  });
}

/**
 * Checks handlers against their signatures, reusing cached results; one TypeScript program for all the
 * handlers that need checking.
 *
 * @example (await checkHandlerTypes([signature], new Map())).get(handlerCheckKey(signature))?.problems
 */
export async function checkHandlerTypes(
  signatures: readonly HandlerSignature[],
  cache: HandlerCheckCache,
  typescript: TypeScriptHost = inProcess,
): Promise<Map<string, HandlerCheck>> {
  const results = new Map<string, HandlerCheck>();
  const pending: PendingCheck[] = [];
  for (const signature of signatures) {
    const key = handlerCheckKey(signature);
    const cached = cache.get(key);
    if (cached && fresh(cached, signature.file)) {
      remember(cache, key, cached);
      results.set(key, cached);
    } else if (!pending.some((p) => p.key === key)) pending.push({ key, signature });
  }
  if (pending.length === 0) return results;
  for (const [key, check] of await typescript.checkSignatures(pending)) {
    remember(cache, key, check);
    results.set(key, check);
  }
  return results;
}
