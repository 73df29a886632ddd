/**
 * Stage 5 for the operations of HTTP APIs: each pinned API becomes the unit of its module (per
 * operation what `defineApiOperation` is given: method, path, parameters, body, success statuses,
 * the step's input and output schemas, all from the pin), and the declared APIs the unit of
 * `apis.ts`, each `{ baseUrl, headers }` as the config writes it, `${NAME}` unread.
 */
import type { JsonValue } from '../../language/json.js';
import { apiModulePath, apisPath, shownPath } from '../layout.js';
import { deriveNames } from '../names.js';
import type { ApiOperationEntry, Catalogue } from '../resolve/catalogue.js';
import type { ApiPins } from '../validate/api-pins.js';
import type { IndexedServer, LoweredApi, LoweredApisFile, LoweredOperation } from './unit.js';

/** What a build emits for the APIs: a module per API, `apis.ts`, and what the index imports. */
export interface LoweredApis {
  readonly apis: readonly LoweredApi[];
  readonly apisFile: LoweredApisFile;
  readonly index: readonly IndexedServer[];
}

/**
 * The units of the pinned APIs; null when the API lock pins none (nothing is emitted for them).
 *
 * @example lowerApis(catalogue, pins, { root: '/p', outDir: '/p/generated' })?.apis[0]?.path // '/p/generated/apis/pets.ts'
 */
export function lowerApis(
  catalogue: Catalogue,
  pins: ApiPins | null,
  ctx: { readonly root: string; readonly outDir: string },
): LoweredApis | null {
  if (!pins || !pins.lock || pins.operations.size === 0) return null;
  const source = shownPath(ctx.root, pins.lock.absolutePath);
  const byApi = new Map<string, LoweredOperation[]>();
  for (const entry of catalogue.remoteEntries()) {
    if (entry.via !== 'api') continue;
    byApi.set(entry.server, [...(byApi.get(entry.server) ?? []), operationOf(entry)]);
  }
  const apis = [...byApi].map(([name, operations]): LoweredApi => {
    const slug = deriveNames(name).fileSlug;
    return { name, slug, path: apiModulePath(ctx.outDir, slug), source, operations };
  });
  return {
    apis,
    apisFile: {
      path: apisPath(ctx.outDir),
      source: shownPath(ctx.root, pins.config.absolutePath),
      apis: Object.fromEntries(pins.declared.map((api) => [api.name, reachOf(api.spec)])),
    },
    index: apis.map((api) => ({ slug: api.slug, tools: api.operations })),
  };
}

function operationOf(entry: ApiOperationEntry): LoweredOperation {
  const { pin } = entry;
  return {
    name: entry.name,
    names: entry.names,
    operation: pin.operation,
    method: pin.method,
    path: pin.path,
    description: entry.description,
    // As the runtime's ApiParameter: the schema stays in the input schema.
    parameters: pin.parameters.map((parameter) => ({
      name: parameter.name,
      key: parameter.key,
      in: parameter.in,
      required: parameter.required,
      ...(parameter.style === undefined ? {} : { style: parameter.style }),
      ...(parameter.explode === undefined ? {} : { explode: parameter.explode }),
    })),
    body: pin.requestBody ? { contentType: pin.requestBody.contentType, required: pin.requestBody.required } : null,
    success: Object.keys(pin.responses),
    input: entry.inputSchema,
    output: entry.outputSchema,
  };
}

/** What the app needs to reach an API: its document is the build's alone. */
function reachOf(spec: { readonly baseUrl: string; readonly headers?: Readonly<Record<string, string>> }): JsonValue {
  return { baseUrl: spec.baseUrl, ...(spec.headers ? { headers: { ...spec.headers } } : {}) };
}
