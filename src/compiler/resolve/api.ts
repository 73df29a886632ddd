/**
 * Stage 3 for the operations of HTTP APIs: each sound pin becomes a catalogue entry named
 * `<api>/<operation>`, as a remote tool does (`remote.ts`): its input (each parameter by its key, and
 * `body`) and output (the success body) derived from the pin (`remote/lock/api-schemas.ts`) and read
 * by the same checks (`pinned-schemas.ts`), so every check of a call applies. What the checks skip is
 * named at its place in the pin (a parameter's schema, the request body's, a response's).
 */
import { inputSource, operationInput, operationOutput, outputSource } from '../../remote/lock/api-schemas.js';
import type { ApiPins } from '../validate/api-pins.js';
import type { ApiOperationEntry } from './entry.js';
import { checkedView, parametersOf, type SkippedPart } from './pinned-schemas.js';
import { distinctNames, type ServerTable } from './remote.js';

/**
 * The entries of every sound pin of a declared API, in the lock's order (API, then operation); an
 * entry of `previous` with the same pin and names is reused. `taken`: identifiers the tools of MCP
 * servers took already (the index exports both).
 *
 * @example apiEntries(pins, () => undefined, new Set()).entries[0]?.name // 'pets/createPet'
 */
export function apiEntries(
  pins: ApiPins,
  previous: (name: string) => ApiOperationEntry | undefined,
  taken: Set<string>,
): { entries: ApiOperationEntry[]; table: ServerTable } {
  const entries: ApiOperationEntry[] = [];
  const pinned = new Map<string, readonly string[]>();
  for (const [api, operations] of pins.operations) {
    pinned.set(
      api,
      operations.map((operation) => operation.pin.operation),
    );
    for (const { pin, at } of operations) {
      const name = `${api}/${pin.operation}`;
      const names = distinctNames(`${api}_${pin.operation}`, taken);
      const before = previous(name);
      if (before && before.pin.hash === pin.hash && before.names.functionName === names.functionName) {
        entries.push(before);
        continue;
      }
      const inputSchema = operationInput(pin);
      const outputSchema = operationOutput(pin);
      const skipped: SkippedPart[] = [];
      const { parameters, open } = parametersOf(inputSchema, skipped);
      const returns = outputSchema ? checkedView(outputSchema, ['outputSchema'], skipped) : null;
      // Each part named where it is in the pin, not in the schemas derived from it.
      const located = skipped.map((part) => {
        const [root, ...rest] = part.path;
        const source = root === 'inputSchema' ? inputSource(pin, rest) : outputSource(pin, rest);
        return { keyword: part.keyword, path: [...source] };
      });
      entries.push({
        kind: 'remote',
        via: 'api',
        name,
        server: api,
        tool: pin.operation,
        description: [pin.summary, pin.description].filter(Boolean).join('\n\n'),
        pin,
        inputSchema,
        outputSchema,
        lock: pins.lock!,
        at,
        names,
        parameters,
        ...(open ? { openInput: true } : {}),
        returns,
        skipped: located,
      });
    }
  }
  const unusable = new Set([...pins.unusableApis, ...pins.unusableOperations]);
  const declared = pins.declared.map((api) => api.name);
  return { entries, table: { declared, apis: new Set(declared), pinned, unusable } };
}
