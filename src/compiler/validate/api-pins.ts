/**
 * Stage 2 for the operations of HTTP APIs: the API lock checked as `toolgen api pull` writes it
 * (version, APIs, operations), each pin against its hash, its depth and its names (as the MCP lock's
 * are, `mcp-pins.ts`), the schemas a step's input and output are made of compiled once; and against
 * the config: a declared API the lock does not pin was never pulled (an error at its entry); a pinned
 * API no longer declared cannot be called (a warning at its pin). A pin too deep, with a control
 * character in a name, or whose schemas ajv refuses is TG1008 here, with what is wrong in its message.
 */
import { forgetValidator, schemaRefusal, schemaSurelyCompiles } from '../../language/validation.js';
import type { DeclaredApi } from '../../remote/declare/api.js';
import {
  apiProblem,
  lockApis,
  OPERATION_NESTED_FIELDS,
  operationProblem,
  type LockedOperation,
} from '../../remote/lock/api-format.js';
import { operationInput, operationOutput } from '../../remote/lock/api-schemas.js';
import { MAX_PIN_DEPTH, pinTooDeep, toolHash, type LockProblem } from '../../remote/lock/format.js';
import { byCodeUnits } from '../../language/order.js';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { printable } from '../diagnostics/printable.js';
import type { LoadedApis } from '../load/api.js';
import type { SourceFile, YamlPath } from '../load/source.js';
import { controlledName } from './mcp-pins.js';

/** One operation as the lock pins it, with where. */
export interface PinnedOperation {
  readonly api: string;
  readonly pin: LockedOperation;
  readonly at: YamlPath;
}

export interface ApiPins {
  /** The lock, to point at; null when there is none. */
  readonly lock: SourceFile | null;
  /** toolgen.config.yaml, to point at its entries. */
  readonly config: SourceFile;
  /** Every API `apis` declares, sorted by name. */
  readonly declared: readonly DeclaredApi[];
  /** The sound pins of each declared API the lock pins, by API, sorted by operation. */
  readonly operations: ReadonlyMap<string, readonly PinnedOperation[]>;
  /** Declared APIs whose pins cannot be used (not pulled, or the lock unreadable): reported already. */
  readonly unusableApis: ReadonlySet<string>;
  /** `<api>/<operation>` of pins that are not sound: reported already. */
  readonly unusableOperations: ReadonlySet<string>;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * The pins a build may use, and what is wrong with the API lock.
 *
 * @example validateApiPins(loaded).operations.get('pets')?.map((operation) => operation.pin.operation) // ['createPet', …]
 */
export function validateApiPins(loaded: LoadedApis): ApiPins {
  const diagnostics: Diagnostic[] = [];
  const declared = new Set(loaded.apis.map((api) => api.name));
  const operations = new Map<string, PinnedOperation[]>();
  const unusableApis = new Set<string>();
  const unusableOperations = new Set<string>();
  const pins: ApiPins = {
    lock: loaded.lock?.source ?? null,
    config: loaded.config,
    declared: loaded.apis,
    operations,
    unusableApis,
    unusableOperations,
    diagnostics,
  };
  const lock = loaded.lock;
  const unusable = () => {
    for (const name of declared) unusableApis.add(name);
    return pins;
  };
  if (lock && lock.diagnostics.length > 0) {
    diagnostics.push(...lock.diagnostics);
    return unusable();
  }
  const read = lock ? lockApis(lock.value) : { apis: {} };
  if ('problem' in read) {
    diagnostics.push(invalid(read, lock!.source));
    return unusable();
  }
  for (const [name, api] of Object.entries(read.apis).sort(([a], [b]) => byCodeUnits(a, b))) {
    if (!declared.has(name)) {
      diagnostics.push(
        diagnostic('API_NOT_DECLARED', { api: name }, lock!.source.locate(['apis', name], { key: true })),
      );
      continue;
    }
    const problem = apiProblem(name, api);
    if (problem) {
      diagnostics.push(invalid(problem, lock!.source));
      unusableApis.add(name);
      continue;
    }
    const sound: PinnedOperation[] = [];
    for (const [operation, pin] of Object.entries((api as { operations: Record<string, unknown> }).operations)) {
      const at: YamlPath = ['apis', name, 'operations', operation];
      const found = pinProblem(name, operation, pin, at, lock!.source);
      if (found) {
        diagnostics.push(found);
        unusableOperations.add(`${name}/${operation}`);
      } else sound.push({ api: name, pin: pin as LockedOperation, at });
    }
    operations.set(
      name,
      sound.sort((a, b) => byCodeUnits(a.pin.operation, b.pin.operation)),
    );
  }
  for (const api of loaded.apis) {
    if (operations.has(api.name) || unusableApis.has(api.name)) continue;
    diagnostics.push(
      diagnostic('API_NOT_PULLED', { api: api.name }, loaded.config.locate(['apis', api.name], { key: true })),
    );
    unusableApis.add(api.name);
  }
  return pins;
}

function invalid(problem: LockProblem, source: SourceFile): Diagnostic {
  return diagnostic('API_LOCK_INVALID', { problem: problem.problem }, source.locate([...problem.at]));
}

/** What makes an operation's pin unusable: not what a pull writes, not what its hash says, or schemas that cannot be used. */
function pinProblem(api: string, name: string, pin: unknown, at: YamlPath, source: SourceFile): Diagnostic | null {
  const full = `${api}/${name}`;
  const problem = (reason: string, where: YamlPath) =>
    diagnostic('API_LOCK_INVALID', { problem: `the pin of '${full}' ${reason}` }, source.locate([...at, ...where]));
  const shape = operationProblem(name, pin);
  if (shape) return problem(shape.reason, shape.at);
  const operation = pin as LockedOperation;
  // Before anything that recurses into the pin (its hash, the checks, the printed types).
  const deep = pinTooDeep(operation as unknown as Record<string, unknown>, OPERATION_NESTED_FIELDS);
  if (deep) return problem(`nests its ${deep[0]} more than ${MAX_PIN_DEPTH} levels deep`, deep);
  const named =
    controlledName(name, operation as unknown as Record<string, unknown>, OPERATION_NESTED_FIELDS) ??
    operation.parameters
      .map((parameter, index) => ({ what: 'a parameter', name: parameter.key, path: ['parameters', index, 'key'] }))
      .find((parameter) => printable(parameter.name) !== parameter.name) ??
    null;
  if (named)
    return problem(
      `names ${named.what === 'the tool' ? 'the operation' : named.what} '${printable(named.name)}', which holds a control character or a bidirectional override`,
      named.path,
    );
  if (toolHash(operation as unknown as Record<string, unknown>) !== operation.hash)
    return diagnostic('API_LOCK_HASH_MISMATCH', { tool: full, api }, source.locate([...at, 'hash']));
  // The runtime checks calls with these schemas: one ajv cannot compile would fail every call.
  for (const [field, schema] of [
    ['input', operationInput(operation)],
    ['output', operationOutput(operation)],
  ] as const) {
    if (schema === null || schemaSurelyCompiles(schema)) continue;
    const refused = schemaRefusal(schema);
    if (!refused) forgetValidator(schema);
    else return problem(`makes an ${field} schema toolgen cannot compile: ${refused.reason}`, []);
  }
  return null;
}
