/**
 * The operations of test/fixtures/http-api/openapi.yaml as `toolgen api pull` pins them and the
 * generated `apis/pets.ts` holds them, written by hand (the run side's tests need no compiler), and an
 * executor over a registry that calls the fixture server through `HttpApis`.
 */
import { HttpApis, type ApiSpec, type HttpApisOptions } from '../../src/remote/http/index.js';
import {
  AuditContext,
  ChainExecutor,
  createTestClock,
  defineApiOperation,
  ToolRegistry,
  type ApiOperationSpec,
  type CallOutcome,
  type ChainExecutorOptions,
  type ToolDefinition,
} from '../../src/runtime/index.js';

const PET = {
  type: 'object',
  required: ['id', 'name'],
  properties: { id: { type: 'integer' }, name: { type: 'string' }, tag: { type: 'string' } },
};
const NEW_PET = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string' }, tag: { type: 'string' } },
};
const PET_ID = { name: 'petId', key: 'petId', in: 'path', required: true } as const;

type Operation = Omit<ApiOperationSpec, 'api' | 'description' | 'input'> & {
  readonly input?: ApiOperationSpec['input'];
};

const object = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

export const OPERATIONS: Readonly<Record<string, Operation>> = {
  listPets: {
    operation: 'listPets',
    method: 'get',
    path: '/pets',
    parameters: [
      { name: 'limit', key: 'limit', in: 'query', required: false },
      { name: 'tag', key: 'tag', in: 'query', required: false },
      { name: 'X-Request-Id', key: 'X-Request-Id', in: 'header', required: false },
    ],
    body: null,
    success: ['200'],
    input: object({
      limit: { type: 'integer' },
      tag: { type: 'array', items: { type: 'string' } },
      'X-Request-Id': { type: 'string' },
    }),
    output: { type: 'array', items: PET },
  },
  createPet: {
    operation: 'createPet',
    method: 'post',
    path: '/pets',
    parameters: [],
    body: { contentType: 'application/json', required: true },
    success: ['201'],
    input: object({ body: NEW_PET }, ['body']),
    output: PET,
  },
  getPet: {
    operation: 'getPet',
    method: 'get',
    path: '/pets/{petId}',
    parameters: [PET_ID],
    body: null,
    success: ['200'],
    output: PET,
  },
  updatePet: {
    operation: 'updatePet',
    method: 'put',
    path: '/pets/{petId}',
    parameters: [PET_ID],
    body: { contentType: 'application/json', required: true },
    success: ['200'],
    input: object({ petId: { type: 'integer' }, body: NEW_PET }, ['petId', 'body']),
    output: PET,
  },
  deletePet: {
    operation: 'deletePet',
    method: 'delete',
    path: '/pets/{petId}',
    parameters: [PET_ID],
    body: null,
    success: ['204'],
    output: null,
  },
  adoptPet: {
    operation: 'adoptPet',
    method: 'post',
    path: '/pets/{petId}/adopt',
    parameters: [PET_ID, { name: 'delayMs', key: 'delayMs', in: 'query', required: false }],
    body: { contentType: 'application/json', required: true },
    success: ['201'],
    input: object(
      {
        petId: { type: 'integer' },
        delayMs: { type: 'integer' },
        body: object({ owner: { type: 'string' } }, ['owner']),
      },
      ['petId', 'body'],
    ),
    output: null,
  },
  flaky: {
    operation: 'flaky',
    method: 'get',
    path: '/flaky/{key}',
    parameters: [
      { name: 'key', key: 'key', in: 'path', required: true },
      { name: 'status', key: 'status', in: 'query', required: true },
      { name: 'times', key: 'times', in: 'query', required: true },
      { name: 'retryAfter', key: 'retryAfter', in: 'query', required: false },
    ],
    body: null,
    success: ['200'],
    input: object(
      {
        key: { type: 'string' },
        status: { type: 'integer' },
        times: { type: 'integer' },
        retryAfter: { type: 'string' },
      },
      ['key', 'status', 'times'],
    ),
    output: null,
  },
  slow: {
    operation: 'slow',
    method: 'get',
    path: '/slow',
    parameters: [{ name: 'ms', key: 'ms', in: 'query', required: true }],
    body: null,
    success: ['200'],
    input: object({ ms: { type: 'integer' } }, ['ms']),
    output: null,
  },
  huge: {
    operation: 'huge',
    method: 'get',
    path: '/huge',
    parameters: [{ name: 'bytes', key: 'bytes', in: 'query', required: true }],
    body: null,
    success: ['200'],
    input: object({ bytes: { type: 'integer' } }, ['bytes']),
    output: null,
  },
  redirect: {
    operation: 'redirect',
    method: 'get',
    path: '/redirect',
    parameters: [{ name: 'to', key: 'to', in: 'query', required: true }],
    body: null,
    success: ['200'],
    input: object({ to: { type: 'string' } }, ['to']),
    output: null,
  },
  echo: {
    operation: 'echo',
    method: 'get',
    path: '/echo',
    parameters: [{ name: 'session', key: 'session', in: 'cookie', required: false }],
    body: null,
    success: ['200'],
    input: object({ session: { type: 'string' } }),
    output: null,
  },
  token: {
    operation: 'token',
    method: 'post',
    path: '/token',
    parameters: [],
    body: { contentType: 'application/x-www-form-urlencoded', required: true },
    success: ['200'],
    input: object(
      {
        body: {
          type: 'object',
          required: ['grant_type'],
          properties: {
            grant_type: { type: 'string' },
            scope: { type: 'array', items: { type: 'string' } },
            remember: { type: 'boolean' },
            max_age: { type: 'integer' },
          },
        },
      },
      ['body'],
    ),
    output: null,
  },
  uploadPhoto: {
    operation: 'uploadPhoto',
    method: 'post',
    path: '/photos',
    parameters: [],
    body: { contentType: 'multipart/form-data', required: true },
    success: ['204'],
    input: object({ body: { type: 'object', properties: { photo: { type: 'string' } } } }, ['body']),
    output: null,
  },
  motd: {
    operation: 'motd',
    method: 'get',
    path: '/motd',
    parameters: [],
    body: null,
    success: ['200'],
    input: object({}),
    output: { type: 'string' },
  },
};

/** A call's output, or its failure when it failed. */
export const outputOf = (outcome: CallOutcome): unknown => (outcome.ok ? outcome.output : outcome.error);

/** The operation's definition, `pets/<operation>`. */
export function petsOperation(name: keyof typeof OPERATIONS, extra: Partial<ApiOperationSpec> = {}): ToolDefinition {
  const operation = OPERATIONS[name]!;
  return defineApiOperation({
    api: 'pets',
    description: `${name} of the tests' pets API`,
    input: object({ petId: { type: 'integer' } }, ['petId']),
    ...operation,
    ...extra,
  });
}

/** Every operation's definition. */
export function petsOperations(): ToolDefinition[] {
  return Object.keys(OPERATIONS).map((name) => petsOperation(name));
}

/** An executor on a test clock over the pets operations (and `tools`), calling the API at `spec`. */
export function petsExecutor(
  spec: ApiSpec,
  options: { apis?: HttpApisOptions; tools?: ToolDefinition[]; executor?: Partial<ChainExecutorOptions> } = {},
) {
  const apis = new HttpApis({ pets: spec }, options.apis);
  const registry = new ToolRegistry([...petsOperations(), ...(options.tools ?? [])], { apis });
  const clock = createTestClock();
  const audit = new AuditContext({ userId: 'u1', sessionId: 's1' });
  const executor = new ChainExecutor({ registry, context: audit, clock, random: () => 0.5, ...options.executor });
  return { executor, registry, apis, clock, audit };
}
