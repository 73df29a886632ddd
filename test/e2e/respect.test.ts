/**
 * What Redocly's Respect (`redocly respect`, @redocly/cli 2.77.0) does with the Arazzo
 * Specification's own examples (test/fixtures/arazzo/, where each comes from: its README), each run
 * against a Prism mock of its OpenAPI document in static mode: the document's examples are the
 * answers, so every run answers alike. These are the runs toolgen's imports of the same files are
 * compared with; the expectations were read from Respect's runs and checked against the Arazzo
 * files and the documents' examples (the reasons are beside each).
 *
 * What Respect cannot run, and why:
 * - pet-coupons.arazzo.yaml: refused before any call. Respect lints first with `outputs-defined` as
 *   an error, and that rule reads `$steps.place-order` in workflows `apply-coupon` and
 *   `buy-available-pet` as the step `place-order` of workflow `place-order` (step ids are scoped
 *   to their workflow). pet-coupons.respect.arazzo.yaml renames that workflow's step.
 * - bnpl: refused, three real faults of the example (two reads of an output
 *   `loanTransactionId` no step has, one step reading its own output); and once those are fixed,
 *   Respect stops before any call on `format: date-time` in the workflow's inputs (it compiles them
 *   with an ajv that knows only the OpenAPI number formats and `password`).
 *   bnpl.respect.arazzo.yaml fixes both; Respect then sends the first step's string payload as one
 *   JSON string, `{$inputs.…}` left in it, and Prism answers 422.
 * - LoginAndRetrievePets: its `operationPath` points at a path item, not an operation; Respect
 *   finds no method for the second step and makes no request.
 * - oauth: its document declares no response bodies, so no token ever comes back from the mock; a
 *   form body (`application/x-www-form-urlencoded`) is sent as the document asks.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasPrism } from '../helpers/prism.js';
import {
  hasRedocly,
  redoclyLint,
  runRespect,
  startPrism,
  type PrismMock,
  type RespectRun,
} from '../helpers/respect.js';
import { ROOT } from '../helpers/toolgen-process.js';

const FIXTURES = path.join(ROOT, 'test/fixtures/arazzo');
const fixture = (name: string) => path.join(FIXTURES, name);

/** Which step ran, in which workflow, with what status and outcome: the sequence the runs are compared by. */
const sequence = (run: RespectRun) =>
  run.steps.map(({ workflowId, stepId, status, ok, calls }) =>
    calls === undefined ? [workflowId, stepId, status, ok] : [workflowId, stepId, `calls ${calls}`, ok],
  );

/** The Pet example of pet-coupons.openapi.yaml as Prism fills it in (no example for photoUrls, price, tags). */
const DOGGIE = {
  id: 10,
  name: 'doggie',
  category: { id: 1, name: 'Dogs' },
  photoUrls: ['string'],
  price: 0,
  tags: [{ id: -9007199254740991, name: 'string' }],
  status: 'available',
};

describe.skipIf(!hasPrism || !hasRedocly)(
  'Redocly Respect on the Arazzo Specification examples, against Prism mocks (skipped without the devDependencies @stoplight/prism-cli and @redocly/cli)',
  () => {
    describe('redocly lint', () => {
      it.each<[file: string, warnings: string[][]]>([
        ['LoginAndRetrievePets.arazzo.yaml', []],
        ['LoginAndRetrievePets.local.arazzo.yaml', []],
        ['oauth.arazzo.yaml', []],
        ['pet-coupons.respect.arazzo.yaml', []],
        ['bnpl.respect.arazzo.yaml', []],
        // The place-order mix-up described at the top, as a warning here (Respect makes it an error).
        [
          'pet-coupons.arazzo.yaml',
          [
            ['outputs-defined', 'warn', '#/workflows/0/outputs/apply_coupon_pet_order_id'],
            ['outputs-defined', 'warn', '#/workflows/1/outputs/buy_pet_order_id'],
          ],
        ],
        // Real faults: step 4 reads its own output redirectAuthToken; steps 5 and 6 read loanTransactionId.
        ...['bnpl-arazzo.yaml', 'bnpl.local.arazzo.yaml'].map((file): [string, string[][]] => [
          file,
          [
            ['outputs-defined', 'warn', '#/workflows/0/steps/4/parameters/0/value'],
            ['outputs-defined', 'warn', '#/workflows/0/steps/5/parameters/0/value'],
            ['outputs-defined', 'warn', '#/workflows/0/steps/6/parameters/0/value'],
          ],
        ]),
      ])('accepts %s, offline, with the warnings %j', async (file, warnings) => {
        const lint = await redoclyLint(fixture(file));
        expect(lint.ok).toBe(true);
        expect(lint.problems.map(({ ruleId, severity, pointer }) => [ruleId, severity, pointer])).toEqual(warnings);
      });

      it('refuses a document without steps, naming where', async () => {
        const folder = await mkdtemp(path.join(tmpdir(), 'toolgen-lint-'));
        try {
          const file = path.join(folder, 'broken.arazzo.yaml');
          await writeFile(
            file,
            [
              'arazzo: 1.0.1',
              'info: { title: Broken, version: 1.0.0 }',
              'sourceDescriptions: [{ name: api, url: ./api.yaml, type: openapi }]',
              'workflows: [{ workflowId: empty }]',
              '',
            ].join('\n'),
          );
          const lint = await redoclyLint(file);
          expect(lint.ok).toBe(false);
          expect(lint.problems).toContainEqual(
            expect.objectContaining({ severity: 'error', message: expect.stringContaining('steps') }),
          );
        } finally {
          await rm(folder, { recursive: true, force: true });
        }
      });
    });

    describe('pet-coupons', () => {
      // The document as it is (every pet operation asks for OAuth) and a copy without security.
      let secured: PrismMock;
      let open: PrismMock;
      beforeAll(async () => {
        [secured, open] = await Promise.all([
          startPrism(fixture('pet-coupons.openapi.yaml')),
          startPrism(fixture('pet-coupons.openapi.yaml'), { withoutSecurity: true }),
        ]);
      });
      afterAll(async () => {
        await Promise.all([secured?.stop(), open?.stop()]);
      });
      const inputs = { my_pet_tags: ['puppy', 'dalmatian'] };

      it('refuses the file as it is: its lint reads $steps.place-order in the wrong workflow', async () => {
        const run = await runRespect(fixture('pet-coupons.arazzo.yaml'), {
          servers: { 'pet-coupons': open.url },
          inputs,
        });
        expect(run.exitCode).toBe(1);
        expect(run.steps).toEqual([]);
        expect(run.output).toContain('Found errors in Arazzo description pet-coupons.arazzo.yaml');
        expect(run.output).toContain('Output key "my_order_id" is not defined in step "place-order"');
        expect(open.log()).not.toContain('Request received');
      });

      it('stops each search at 401 when no credentials are sent; place-order alone succeeds', async () => {
        const run = await runRespect(fixture('pet-coupons.respect.arazzo.yaml'), {
          servers: { 'pet-coupons': secured.url },
          inputs,
        });
        expect(run.exitCode).toBe(1);
        expect(run.workflows).toEqual([
          { workflowId: 'apply-coupon', ok: false },
          { workflowId: 'buy-available-pet', ok: false },
          { workflowId: 'place-order', ok: true },
        ]);
        expect(sequence(run)).toEqual([
          ['apply-coupon', 'find-pet', 401, false],
          ['buy-available-pet', 'find-pet', 401, false],
          ['place-order', 'submit-order', 200, true],
        ]);
        // Run on its own, place-order gets none of the inputs it declares (Respect drops the others):
        // the payload keeps its two literals only.
        expect(run.steps[2]!.requestBody).toEqual({ status: 'placed', complete: false });
      });

      it('apply-coupon: finds the pet, then calls /pet/{petId}/coupons unfilled (the example names the parameter pet_id)', async () => {
        const run = await runRespect(fixture('pet-coupons.respect.arazzo.yaml'), {
          workflow: 'apply-coupon',
          servers: { 'pet-coupons': open.url },
          inputs,
        });
        expect(run.exitCode).toBe(1);
        expect(sequence(run)).toEqual([
          ['apply-coupon', 'find-pet', 200, true],
          ['apply-coupon', 'find-coupons', 400, false],
        ]);
        const [findPet, findCoupons] = run.steps;
        // pet_tags is not a parameter of findPetsByTags (that is `tags`): sent as written, the array joined by commas.
        expect(findPet!.url).toBe(`${open.url}/pet/findByTags?pet_tags=puppy%2Cdalmatian`);
        expect(findPet!.responseBody).toEqual([DOGGIE]);
        expect(findCoupons!.url).toBe(`${open.url}/pet/{petId}/coupons`);
        expect(findCoupons!.failures[0]).toMatch(/^success criteria check: .*\$statusCode == 200/);
      });

      it('buy-available-pet: finds the pet, then places the order through the place-order workflow', async () => {
        const run = await runRespect(fixture('pet-coupons.respect.arazzo.yaml'), {
          workflow: 'buy-available-pet',
          servers: { 'pet-coupons': open.url },
          inputs,
        });
        expect(run.exitCode).toBe(0);
        expect(sequence(run)).toEqual([
          ['buy-available-pet', 'find-pet', 200, true],
          ['buy-available-pet', 'place-order', 'calls place-order', true],
          ['place-order', 'submit-order', 200, true],
        ]);
        const [findPet, , submitOrder] = run.steps;
        // The reusable parameters page and pageSize, with the step's values (1 and 10, not 100).
        expect(findPet!.url).toBe(`${open.url}/pet/findByStatus?status=available&page=1&pageSize=10`);
        expect(findPet!.responseBody).toEqual([DOGGIE]);
        // pet_id from find-pet's $response.body#/0/id; quantity and coupon_code were never given, so absent.
        expect(submitOrder).toMatchObject({
          method: 'POST',
          url: `${open.url}/store/order`,
          requestBody: { petId: 10, status: 'placed', complete: false },
          // The Order example; status is the enum's first value, complete a boolean without example.
          responseBody: {
            id: 10,
            petId: 198772,
            quantity: 7,
            status: 'placed',
            complete: true,
            couponCode: 'SUMMERSALE',
          },
        });
      });
    });

    describe('LoginAndRetrievePets (the local copy, its source the swagger petstore document)', () => {
      let petstore: PrismMock;
      beforeAll(async () => {
        petstore = await startPrism(fixture('swagger-petstore.openapi.yaml'));
      });
      afterAll(async () => {
        await petstore?.stop();
      });

      it('logs in, then makes no request: the operationPath names a path item, not an operation', async () => {
        const run = await runRespect(fixture('LoginAndRetrievePets.local.arazzo.yaml'), {
          servers: { petStoreDescription: petstore.url },
          inputs: { username: 'user1', password: 'pass' },
        });
        expect(run.exitCode).toBe(1);
        expect(sequence(run)).toEqual([
          ['loginUserRetrievePet', 'loginStep', 200, true],
          ['loginUserRetrievePet', 'getPetStep', undefined, false],
        ]);
        const [login, getPet] = run.steps;
        expect(login!.url).toBe(`${petstore.url}/user/login?username=user1&password=pass`);
        // loginUser answers a string without example: Prism's stand-in for one.
        expect(login!.responseBody).toBe('string');
        expect(getPet!.method).toBeUndefined();
        expect(getPet!.failures).toEqual(['unexpected error: "method" is required to make a request']);
      });
    });

    describe('bnpl (its source the local bnpl-openapi.yaml)', () => {
      let bnpl: PrismMock;
      beforeAll(async () => {
        bnpl = await startPrism(fixture('bnpl-openapi.yaml'));
      });
      afterAll(async () => {
        await bnpl?.stop();
      });
      const inputs = {
        customer: {
          firstName: 'Ada',
          lastName: 'Lovelace',
          dateOfBirth: '1815-12-10T00:00:00Z',
          postalCode: 'W1J 7NT',
        },
        products: [{ productCode: 'LAMP-01', purchaseAmount: { currency: 'GBP', amount: 120 } }],
      };

      it('refuses the example as it is: outputs no step defines', async () => {
        const run = await runRespect(fixture('bnpl.local.arazzo.yaml'), { servers: { BnplApi: bnpl.url }, inputs });
        expect(run.exitCode).toBe(1);
        expect(run.steps).toEqual([]);
        expect(run.output).toContain('Found errors in Arazzo description bnpl.local.arazzo.yaml');
        expect(run.output).toContain('Output key "loanTransactionId" is not defined in step "initiateBnplTransaction"');
      });

      it('with those fixed, sends the first payload as one JSON string, its {$…} unfilled, and Prism answers 422', async () => {
        const run = await runRespect(fixture('bnpl.respect.arazzo.yaml'), { servers: { BnplApi: bnpl.url }, inputs });
        expect(run.exitCode).toBe(1);
        expect(sequence(run)).toEqual([['ApplyForLoanAtCheckout', 'checkLoanCanBeProvided', 422, false]]);
        const [check] = run.steps;
        expect(check!.url).toBe(`${bnpl.url}/products`);
        expect(check!.requestBody).toBe(
          '{\n  "customer": "{$inputs.customer}",\n  "products": "{$inputs.products}"\n}\n',
        );
        expect(bnpl.log()).toContain('Request body must be object');
      });
    });

    describe('oauth', () => {
      let oauth: PrismMock;
      beforeAll(async () => {
        oauth = await startPrism(fixture('oauth.openapi.yaml'));
      });
      afterAll(async () => {
        await oauth?.stop();
      });

      it('runs every workflow to its first step: the document declares no token in any answer', async () => {
        const run = await runRespect(fixture('oauth.arazzo.yaml'), {
          servers: { 'apim-auth': oauth.url },
          inputs: {
            my_client_id: 'app-1',
            my_client_secret: 's3cret',
            my_redirect_uri: 'https://app.example/cb',
            client_id: 'app-2',
            client_secret: 'sesame',
            redirect_uri: 'https://other.example/cb',
          },
        });
        expect(run.exitCode).toBe(1);
        expect(run.workflows.map(({ workflowId, ok }) => [workflowId, ok])).toEqual([
          ['refresh-token-flow', false],
          ['client-credentials-flow', false],
          ['authorization-code-flow', false],
        ]);
        expect(sequence(run)).toEqual([
          ['refresh-token-flow', 'do-the-auth-flow', 'calls authorization-code-flow', false],
          ['authorization-code-flow', 'browser-authorize', 200, false],
          ['client-credentials-flow', 'get-client-creds-token', 200, false],
          ['authorization-code-flow', 'browser-authorize', 200, false],
        ]);
        const [, calledAuthorize, clientCredentials, authorize] = run.steps;
        // The called workflow's inputs are the calling step's parameters, from refresh-token-flow's inputs.
        expect(calledAuthorize!.url).toBe(
          `${oauth.url}/authorize?client_id=app-1&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&response_type=code&scope=read&state=12345`,
        );
        expect(authorize!.url).toBe(
          `${oauth.url}/authorize?client_id=app-2&redirect_uri=https%3A%2F%2Fother.example%2Fcb&response_type=code&scope=read&state=12345`,
        );
        expect(calledAuthorize!.failures[0]).toContain('$response.body#/access_token != null');
        // A form body, which Prism accepted against the document's form schema.
        expect(clientCredentials).toMatchObject({
          method: 'POST',
          url: `${oauth.url}/oauth/token`,
          requestBody: { client_id: 'app-2', client_secret: 'sesame', grant_type: 'client_credentials' },
        });
        // The jsonpath criterion `$[?@.access_token != null]` passes on the empty answer; only reading
        // the output access_token fails the step.
        expect(clientCredentials!.failures).toEqual([
          expect.stringMatching(
            /^unexpected error: Error in resolving runtime expression '\$response\.body#\/access_token'/,
          ),
        ]);
      });
    });
  },
);
