/**
 * Arazzo workflows imported, built and run as a user does it, with the built CLI: `toolgen arazzo
 * import`, `api pull`, the build, `toolgen run` (the generated operations imported through tsx).
 *
 * - The tests' own document (test/fixtures/arazzo-pets) over the tests' own pets API, a real server
 *   on 127.0.0.1: every workflow runs as Arazzo says it should (criteria, outputs, a goto on a
 *   criterion, retries on a status, a goto after the retries), and exports to a document the official
 *   Arazzo 1.0 schema and `redocly lint` accept.
 * - The Arazzo Specification's examples (test/fixtures/arazzo, where each comes from: its README)
 *   against Prism mocks of their documents, beside what Redocly Respect does with the same files
 *   against the same mocks (test/e2e/respect.test.ts holds Respect's runs in full): where Respect
 *   finds a fault of the example by running into it, toolgen's build finds it first, at its line;
 *   where both run, the same requests go out, and each stops where the comments say why.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startPetsApi, type PetsApi } from '../fixtures/http-api/server.js';
import { arazzoSchemaErrors } from '../helpers/arazzo-schema.js';
import { hasPrism, startPrism } from '../helpers/prism.js';
import { hasRedocly, redoclyLint, runRespect } from '../helpers/respect.js';
import { runtimePaths } from '../helpers/runtime-modules.js';
import { ROOT, toolgenAsync } from '../helpers/toolgen-process.js';

/** An app folder: ES modules, the runtime resolved to this checkout's sources (as tsx reads tsconfig paths). */
function makeApp(prefix: string): string {
  const root = mkdtempSync(path.join(os.tmpdir(), prefix));
  writeFileSync(path.join(root, 'package.json'), '{ "type": "module", "private": true }\n');
  writeFileSync(
    path.join(root, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        strict: true,
        paths: runtimePaths(),
      },
    }),
  );
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'));
  return root;
}

interface RunResult {
  success: boolean;
  steps: { step: string; status: string; attempts: { input: unknown }[] }[];
  output?: Record<string, unknown>;
  failure?: { step: string; kind: string; message: string };
}

async function run(root: string, tool: string, input: object, env: NodeJS.ProcessEnv): Promise<RunResult> {
  const ran = await toolgenAsync(['run', tool, '--input', JSON.stringify(input), '--json'], { cwd: root, env });
  expect(ran.stderr).toBe('');
  return JSON.parse(ran.stdout) as RunResult;
}

const sequence = (result: RunResult) => result.steps.map(({ step, status }) => [step, status]);

describe("the tests' own Arazzo document, against the pets API", () => {
  let root: string;
  let api: PetsApi;
  beforeAll(async () => {
    root = makeApp('toolgen-arazzo-pets-');
    cpSync(path.join(ROOT, 'test/fixtures/arazzo-pets'), path.join(root, 'arazzo-pets'), { recursive: true });
    cpSync(path.join(ROOT, 'test/fixtures/http-api/openapi.yaml'), path.join(root, 'http-api/openapi.yaml'));
    const imported = await toolgenAsync(['arazzo', 'import', 'arazzo-pets/pets.arazzo.yaml'], { cwd: root });
    expect(imported.status, imported.stdout).toBe(0);
    expect((await toolgenAsync(['api', 'pull'], { cwd: root })).status).toBe(0);
    const built = await toolgenAsync([], { cwd: root });
    expect(built.status, built.stderr).toBe(0);
    api = await startPetsApi();
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    rmSync(root, { recursive: true, force: true });
  });
  const env = () => ({ PETS_URL: api.url });

  it('adopt-new-pet: makes a pet, reads it back (its criteria hold), adopts it, and returns the outputs', async () => {
    const result = await run(root, 'adopt-new-pet', { name: 'Bo', owner: 'Ann' }, env());
    expect(sequence(result)).toEqual([
      ['create', 'success'],
      ['read', 'success'],
      ['adopt', 'success'],
    ]);
    expect(result.output).toEqual({
      name: 'Bo',
      owner: 'Ann',
      shelter: 'Main Street',
      adopted_pet: 4,
      location: '/pets/4',
      created_status: 201,
      pet: { id: 4, name: 'Bo', tag: 'from Main Street' },
      adoption: 1,
    });
    expect(api.requests.map(({ method, path, body }) => [method, path, body])).toEqual([
      ['POST', '/pets', '{"name":"Bo","tag":"from Main Street"}'],
      ['GET', '/pets/4', ''],
      ['POST', '/pets/4/adopt?delayMs=0', '{"owner":"Ann"}'],
    ]);
  });

  it('find-or-make: ends after the list when it finds pets of the tag, and makes one when it finds none', async () => {
    const found = await run(root, 'find-or-make', { tag: 'dog' }, env());
    expect(sequence(found)).toEqual([
      ['list', 'success'],
      ['list_next', 'success'],
    ]);
    expect(found.output).toEqual({ tag: 'dog', total: '1' });
    const none = await run(root, 'find-or-make', { tag: 'fish' }, env());
    expect(sequence(none)).toEqual([
      ['list', 'success'],
      ['list_next', 'success'],
      ['make', 'success'],
    ]);
    expect(none.output).toMatchObject({ tag: 'fish', total: '0', made: expect.any(Number) });
    expect(api.requests.at(-1)).toMatchObject({
      method: 'POST',
      path: '/pets',
      body: '{"name":"New fish","tag":"fish"}',
    });
  });

  it('until-ok: retries the 503s up to its retryLimit, then goes to the step its goto names', async () => {
    const recovered = await run(root, 'until-ok', { key: 'a', times: 2 }, env());
    expect(sequence(recovered)).toEqual([['flaky', 'success']]);
    expect(recovered.steps[0]!.attempts).toHaveLength(3);
    expect(recovered.output).toEqual({ key: 'a', times: 2, calls: 3 });
    const gaveUp = await run(root, 'until-ok', { key: 'b', times: 9 }, env());
    expect(sequence(gaveUp)).toEqual([
      ['flaky', 'failed'],
      ['fallback', 'success'],
    ]);
    expect(gaveUp.steps[0]!.attempts).toHaveLength(4);
    expect(gaveUp.output).toEqual({ key: 'b', times: 9, first: 'Rex' });
  });

  it.skipIf(!hasRedocly)('exports a document the official Arazzo 1.0 schema and redocly lint accept', async () => {
    const exported = await toolgenAsync(
      ['arazzo', 'export', 'adopt-new-pet', 'find-or-make', 'until-ok', '--out', 'exported/pets.arazzo.yaml'],
      { cwd: root },
    );
    expect(exported.status, exported.stderr).toBe(0);
    const file = path.join(root, 'exported/pets.arazzo.yaml');
    expect(arazzoSchemaErrors(parse(readFileSync(file, 'utf8')))).toEqual([]);
    const lint = await redoclyLint(file);
    expect(lint.problems).toEqual([]);
    expect(lint.ok).toBe(true);
  });
});

describe.skipIf(!hasPrism || !hasRedocly)(
  'the Arazzo Specification examples, against Prism mocks, beside Redocly Respect (skipped without the devDependencies @stoplight/prism-cli and @redocly/cli)',
  () => {
    const FIXTURES = path.join(ROOT, 'test/fixtures/arazzo');
    let root: string;
    beforeAll(() => {
      root = makeApp('toolgen-arazzo-examples-');
      for (const file of [
        'pet-coupons.respect.arazzo.yaml',
        'pet-coupons.openapi.yaml',
        'LoginAndRetrievePets.local.arazzo.yaml',
        'swagger-petstore.openapi.yaml',
        'bnpl.respect.arazzo.yaml',
        'bnpl-openapi.yaml',
        'oauth.arazzo.yaml',
        'oauth.openapi.yaml',
      ])
        cpSync(path.join(FIXTURES, file), path.join(root, file));
    });
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    /** Imports `file` into its own config dir, pulls, and builds it: the build's exit and its errors as `file:line:col CODE`. */
    async function importAndBuild(file: string, dir: string): Promise<{ status: number | null; errors: string[] }> {
      const imported = await toolgenAsync(['arazzo', 'import', file, '--out', dir], { cwd: root });
      expect(imported.status, imported.stderr).not.toBe(2);
      expect((await toolgenAsync(['api', 'pull'], { cwd: root })).status).toBe(0);
      const built = await toolgenAsync(['--config-dir', dir], { cwd: root });
      const errors = [...built.stderr.matchAll(/^(\S+:\d+:\d+) error (TG\d{4})/gm)].map(
        (match) => `${match[1]} ${match[2]}`,
      );
      return { status: built.status, errors };
    }

    it('pet-coupons: the build refuses apply-coupon at the two parameters Respect runs into (400 at find-coupons); buy-available-pet sends what Respect sends, then stops where an input is missing', async () => {
      const build = await importAndBuild('pet-coupons.respect.arazzo.yaml', 'pet-coupons');
      expect(build.status).toBe(1);
      expect(build.errors).toEqual([
        'pet-coupons/apply-coupon.yaml:28:11 TG5001',
        'pet-coupons/apply-coupon.yaml:37:11 TG5001',
      ]);
      rmSync(path.join(root, 'pet-coupons/apply-coupon.yaml'));
      expect((await toolgenAsync(['--config-dir', 'pet-coupons'], { cwd: root })).status).toBe(0);
      const prism = await startPrism(path.join(FIXTURES, 'pet-coupons.openapi.yaml'), { withoutSecurity: true });
      try {
        const respect = await runRespect(path.join(FIXTURES, 'pet-coupons.respect.arazzo.yaml'), {
          workflow: 'buy-available-pet',
          servers: { 'pet-coupons': prism.url },
        });
        const ours = await toolgenAsync(['run', 'buy-available-pet', '--input', '{}', '--json'], {
          cwd: root,
          env: { PET_COUPONS_URL: prism.url },
        });
        const result = JSON.parse(ours.stdout) as RunResult;
        // The same first request: the reusable parameters page and pageSize with the step's values.
        expect(respect.steps[0]!.url).toBe(`${prism.url}/pet/findByStatus?status=available&page=1&pageSize=10`);
        expect(result.steps[0]!.attempts[0]!.input).toEqual({ status: 'available', page: 1, pageSize: 10 });
        expect(respect.steps.map(({ stepId, ok }) => [stepId, ok])).toEqual([
          ['find-pet', true],
          ['place-order', true],
          ['submit-order', true],
        ]);
        // Respect drops the inputs buy-available-pet never gives place-order (quantity, coupon_code) from
        // the order's payload; toolgen stops at the order, naming the missing input (its build warned: TG4002).
        expect(sequence(result)).toEqual([
          ['find-pet', 'success'],
          ['place-order', 'failed'],
        ]);
        expect(result.failure).toMatchObject({
          step: 'place-order',
          kind: 'unresolved_reference',
          message:
            "step 'submit-order' failed: step 'submit-order' inputs.body.quantity: << state.quantity >> has no value: state has no quantity",
        });
      } finally {
        await prism.stop();
      }
    });

    it("LoginAndRetrievePets: both log in alike; Respect then sends nothing (the operationPath names a path item), toolgen sends the path's only operation and gets 401 without the credentials it left out", async () => {
      const build = await importAndBuild('LoginAndRetrievePets.local.arazzo.yaml', 'login');
      expect(build).toEqual({ status: 0, errors: [] });
      const prism = await startPrism(path.join(FIXTURES, 'swagger-petstore.openapi.yaml'));
      try {
        const inputs = { username: 'user1', password: 'pass' };
        const respect = await runRespect(path.join(FIXTURES, 'LoginAndRetrievePets.local.arazzo.yaml'), {
          servers: { petStoreDescription: prism.url },
          inputs,
        });
        const ours = await toolgenAsync(['run', 'loginUserRetrievePet', '--input', JSON.stringify(inputs), '--json'], {
          cwd: root,
          env: { PETSTOREDESCRIPTION_URL: prism.url },
        });
        expect(ours.stderr).toBe('');
        const result = JSON.parse(ours.stdout) as RunResult;
        expect(respect.steps.map(({ stepId, status, ok }) => [stepId, status, ok])).toEqual([
          ['loginStep', 200, true],
          ['getPetStep', undefined, false],
        ]);
        expect(sequence(result)).toEqual([
          ['loginStep', 'success'],
          ['getPetStep', 'failed'],
        ]);
        expect(result.steps[0]!.attempts[0]!.input).toEqual(inputs);
        expect(result.failure?.message).toBe(
          "'petStoreDescription/findPetsByStatus' (GET /pet/findByStatus) answered HTTP 401",
        );
      } finally {
        await prism.stop();
      }
    });

    it("bnpl: the build refuses the workflow at the example's faults, before the request Prism answers 422 to Respect", async () => {
      const build = await importAndBuild('bnpl.respect.arazzo.yaml', 'bnpl');
      expect(build.status).toBe(1);
      expect(build.errors).toEqual([
        'bnpl/ApplyForLoanAtCheckout.yaml:61:13 TG5004',
        'bnpl/ApplyForLoanAtCheckout.yaml:67:82 TG4007',
        'bnpl/ApplyForLoanAtCheckout.yaml:69:82 TG4007',
        'bnpl/ApplyForLoanAtCheckout.yaml:122:13 TG5003',
        'bnpl/ApplyForLoanAtCheckout.yaml:148:9 TG5002',
        'bnpl/ApplyForLoanAtCheckout.yaml:149:11 TG5001',
        'bnpl/ApplyForLoanAtCheckout.yaml:169:13 TG5003',
      ]);
    });

    it('oauth: the build refuses reading a token from answers the document gives no body, where Respect fails each first step at run time', async () => {
      const build = await importAndBuild('oauth.arazzo.yaml', 'oauth');
      expect(build.status).toBe(1);
      // Every read of a token (criteria and outputs) is of a body the document never declares; and the
      // refresh's form lacks client_id, which get-token requires (TG5003).
      expect(build.errors).toEqual([
        'oauth/authorization-code-flow.yaml:38:29 TG4007',
        'oauth/authorization-code-flow.yaml:38:73 TG4007',
        'oauth/authorization-code-flow.yaml:41:13 TG5004',
        'oauth/authorization-code-flow.yaml:54:29 TG4007',
        'oauth/authorization-code-flow.yaml:54:72 TG4007',
        'oauth/authorization-code-flow.yaml:57:13 TG5004',
        'oauth/authorization-code-flow.yaml:58:13 TG5004',
        'oauth/authorization-code-flow.yaml:59:13 TG5004',
        'oauth/client-credentials-flow.yaml:32:29 TG4007',
        'oauth/client-credentials-flow.yaml:32:78 TG4007',
        'oauth/client-credentials-flow.yaml:35:13 TG5004',
        'oauth/refresh-token-flow.yaml:42:13 TG5003',
        'oauth/refresh-token-flow.yaml:46:29 TG4007',
        'oauth/refresh-token-flow.yaml:46:70 TG4007',
        'oauth/refresh-token-flow.yaml:49:13 TG5004',
        'oauth/refresh-token-flow.yaml:50:13 TG5004',
        'oauth/refresh-token-flow.yaml:51:13 TG5004',
      ]);
    });
  },
);
