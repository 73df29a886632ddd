/**
 * Results cached by a step's resolved inputs: per registry, bounded, expiring. Keys include the user
 * unless the step says the result may be shared, so one user's data never reaches another.
 */
import type { StepResponse } from './remote-api.js';

export class ResultCache {
  readonly #entries = new Map<
    string,
    { readonly output: unknown; readonly expires: number; readonly response: StepResponse | undefined }
  >();

  constructor(readonly maxEntries = 1000) {}

  get size(): number {
    return this.#entries.size;
  }

  /** The cached output (an API operation's with its response), or undefined when there is none or it expired. */
  get(key: string, now: number): { output: unknown; response?: StepResponse } | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    // Refresh its place: the least recently used entry is the one to go when the cache is full.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    // A copy each time: a tool that changes what it was given must not change the next hit.
    const output = structuredClone(entry.output);
    return entry.response === undefined ? { output } : { output, response: entry.response };
  }

  set(key: string, output: unknown, expires: number, response?: StepResponse): void {
    this.#entries.delete(key);
    this.#entries.set(key, { output: structuredClone(output), expires, response });
    while (this.#entries.size > this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
  }

  clear(): void {
    this.#entries.clear();
  }
}

/** The cache key of a call: tool, whose (unless shared), and the input with its keys in a stable order. */
export function cacheKey(tool: string, userId: string | null, input: unknown): string {
  return `${tool}\u0000${userId ?? '*'}\u0000${stableJson(input)}`;
}

/** JSON with object keys sorted, so equal values give equal text. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
