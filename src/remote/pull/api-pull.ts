/**
 * Pulls one API: reads its OpenAPI document (and every document its `$ref`s reach) and returns its
 * operations as the lock pins them, or why it could not, as one sentence (`describeApiFailure` words
 * it for a person). The document is all it reads: `baseUrl` and `headers` are the app's, not the pull's.
 */
import { documentLocation, type DeclaredApi } from '../declare/api.js';
import { OPERATION_NESTED_FIELDS, type LockedApi } from '../lock/api-format.js';
import { MAX_PIN_DEPTH, pinTooDeep } from '../lock/format.js';
import { printable } from '../../compiler/diagnostics/printable.js';
import { DocumentProblem, readDocuments } from './openapi/documents.js';
import { pinnedOperations } from './openapi/operations.js';

export type ApiPullResult =
  | { readonly ok: true; readonly api: DeclaredApi; readonly locked: LockedApi }
  | { readonly ok: false; readonly api: DeclaredApi; readonly problem: string };

/**
 * The API's operations, pinned.
 *
 * @example await pullApi({ name: 'pets', spec: { openapi: 'pets.yaml', baseUrl: 'http://x' }, root: '/app' }, { timeoutSeconds: 30 })
 */
export async function pullApi(api: DeclaredApi, options: { readonly timeoutSeconds: number }): Promise<ApiPullResult> {
  try {
    const documents = await readDocuments(documentLocation(api), {
      timeoutMs: options.timeoutSeconds * 1000,
      shownAs: api.spec.openapi,
    });
    const locked = pinnedOperations(documents);
    for (const [name, pin] of Object.entries(locked.operations)) {
      const deep = pinTooDeep(pin as unknown as Record<string, unknown>, OPERATION_NESTED_FIELDS);
      if (deep)
        return {
          ok: false,
          api,
          problem: `its operation '${name}' nests its ${deep[0]} more than ${MAX_PIN_DEPTH} levels deep, deeper than toolgen pins`,
        };
    }
    return { ok: true, api, locked };
  } catch (error) {
    if (!(error instanceof DocumentProblem)) throw error;
    return { ok: false, api, problem: error.message };
  }
}

/**
 * The line that reports an API that could not be pulled.
 *
 * @example describeApiFailure(api, 'api/pets.yaml does not exist') // "toolgen: cannot pull 'pets' (api/pets.yaml): api/pets.yaml does not exist"
 */
export function describeApiFailure(api: DeclaredApi, problem: string): string {
  return `toolgen: cannot pull '${printable(api.name)}' (${printable(api.spec.openapi)}): ${printable(problem)}`;
}
