/**
 * An API operation's span is its HTTP client span (OpenTelemetry's HTTP conventions on the GenAI tool
 * span): kind CLIENT, `http.request.method`, `url.full` without query values, `server.address`,
 * `server.port`, `http.response.status_code`, and `error.type` = the status of a failed response.
 * And no credential read from `${NAME}` reaches a span, an audit record, an output or a message.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPetsApi, type PetsApi } from '../fixtures/http-api/server.js';
import { chain, step } from '../helpers/runtime.js';
import { petsExecutor, petsOperation } from './pets.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const TOKEN = 'sk-live-0123456789abcdef';

let api: PetsApi;
beforeAll(async () => {
  api = await startPetsApi();
});
afterAll(() => api.close());

const spanOf = (name: string) => exporter.getFinishedSpans().findLast((span) => span.name === `execute_tool ${name}`)!;

it('makes an API call an HTTP client span', async () => {
  const { executor } = petsExecutor({ baseUrl: api.url }, { executor: { tracer: provider.getTracer('http-test') } });
  await executor.call('pets/listPets', { limit: 2, tag: ['dog'] });
  const span = spanOf('pets/listPets');
  expect(span.kind).toBe(SpanKind.CLIENT);
  const { port } = new URL(api.url);
  expect(span.attributes).toMatchObject({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'pets/listPets',
    'http.request.method': 'GET',
    'url.full': `${api.url}/pets?limit=REDACTED&tag=REDACTED`,
    'server.address': '127.0.0.1',
    'server.port': Number(port),
    'http.response.status_code': 200,
    'toolgen.api': 'pets',
    'toolgen.api.operation': 'listPets',
  });
  expect(span.status.code).toBe(SpanStatusCode.UNSET);
});

it('marks a response its step did not accept (success_when) with unmet, and keeps its status', async () => {
  const { executor } = petsExecutor({ baseUrl: api.url }, { executor: { tracer: provider.getTracer('http-test') } });
  const result = await executor.executeChain(
    chain('c', [
      { ...step('find', 'pets/getPet', { inputs: { petId: 1 } }), successWhen: ['responses.find.status = 201'] },
    ]),
  );
  expect(result).toMatchObject({ success: false, failure: { kind: 'unmet' } });
  const span = spanOf('pets/getPet');
  expect(span.attributes).toMatchObject({ 'http.response.status_code': 200, 'error.type': 'unmet' });
  expect(span.status).toEqual({
    code: SpanStatusCode.ERROR,
    message: "step 'find': success_when did not hold: responses.find.status = 201",
  });
});

it('marks a response outside the success list with its status', async () => {
  const { executor } = petsExecutor({ baseUrl: api.url }, { executor: { tracer: provider.getTracer('http-test') } });
  await executor.call('pets/getPet', { petId: 77 });
  const span = spanOf('pets/getPet');
  expect(span.attributes).toMatchObject({
    'url.full': `${api.url}/pets/77`,
    'http.response.status_code': 404,
    'error.type': '404',
  });
  expect(span.status).toEqual({
    code: SpanStatusCode.ERROR,
    message: `'pets/getPet' (GET /pets/{petId}) answered HTTP 404: {"error":"no pet 77"}`,
  });
});

it('keeps a token read from ${NAME} out of spans, audit records, outputs and messages', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise((resolve) => closed.close(resolve));
  const env = { PETS_URL: api.url, PETS_TOKEN: TOKEN, DEAD_URL: `http://127.0.0.1:${port}/${TOKEN}` };
  // `echo` answers the request's headers (the token among them); pinned with 201 only, its 200 is a failure quoting them.
  const echoFailing = petsOperation('echo', { operation: 'echoFailing', success: ['201'] });
  const { executor, audit } = petsExecutor(
    { baseUrl: '${PETS_URL}', headers: { Authorization: 'Bearer ${PETS_TOKEN}' } },
    {
      apis: { env, overrides: { dead: { baseUrl: '${DEAD_URL}', headers: { 'x-key': '${PETS_TOKEN}' } } } },
      tools: [echoFailing, petsOperation('getPet', { api: 'dead', operation: 'getPet' })],
      executor: { tracer: provider.getTracer('http-test'), traceContent: true },
    },
  );
  exporter.reset();
  const result = await executor.executeChain(
    chain('c', [
      step('echo', 'pets/echo', { next: 'failing', map: { headers: 'headers' } }),
      step('failing', 'pets/echoFailing', { failure: { action: 'continue', next: 'dead' } }),
      step('dead', 'dead/getPet', { inputs: { petId: 1 } }),
    ]),
  );
  // The token did go out, to the API.
  expect(api.requests.at(-1)!.headers['authorization']).toBe(`Bearer ${TOKEN}`);
  expect(result.results.map((entry) => entry.status)).toEqual(['success', 'failed', 'failed']);
  expect(result.final_state).toEqual({
    headers: expect.objectContaining({ authorization: 'Bearer [redacted ${PETS_TOKEN}]' }),
  });
  const messages = result.results.map((entry) => entry.error?.message ?? '');
  expect(messages[1]).toContain('[redacted ${PETS_TOKEN}]');
  expect(messages[2]).toMatch(/^cannot reach the API at http:\/\/127\.0\.0\.1:\d+ for GET \/pets\/1: /);

  const spans = exporter.getFinishedSpans().map((span) => ({
    name: span.name,
    attributes: span.attributes,
    status: span.status,
    events: span.events,
  }));
  expect(spans.length).toBeGreaterThanOrEqual(4);
  const everything = JSON.stringify({ result, audit: audit.trail, spans });
  expect(everything).toContain('[redacted ${PETS_TOKEN}]');
  expect(everything).not.toContain(TOKEN);
  expect(everything).not.toContain(encodeURIComponent(TOKEN));
});

it('keeps a token out of url.full where the URL encodes it its own way (a space as %20, a + kept)', async () => {
  const token = 'sk live+01%zz{x}';
  const { apis } = petsExecutor({ baseUrl: `${api.url}/hooks/\${HOOK}` }, { apis: { env: { HOOK: token } } });
  const shown = apis.describe('pets', '/pets/1')['url.full'];
  expect(shown).toBe(`${api.url}/hooks/[redacted \${HOOK}]/pets/1`);
});
