/**
 * The test cases of a tool, worked out from its YAML: its examples and error scenarios as runs of the
 * tool, and a test of what the first step's `on_failure` promises, with attempts and waits as numbers.
 */
import type { JsonValue } from '../../language/json.js';
import type { ChainPlan } from '../../language/plan.js';
import type { Stub, TestContext } from '../../language/testing.js';
import { schemaErrors } from '../../language/validation.js';
import { requiredPolicies } from '../check/callees.js';
import { literalErrors } from '../check/literals.js';
import type { ContextDoc, ParameterDoc, ShapeDoc } from '../model.js';
import type { Catalogue, CatalogueEntry } from '../resolve/catalogue.js';
import { promisedWaits, retries as retriesKind } from './promises.js';
import { sampleValue } from './sample.js';
import type { FailurePolicyTest, TestRun, ToolTests } from './unit.js';

type Input = { readonly [name: string]: JsonValue };

/**
 * Every test case of a tool; `plan` is the composite's (null for a function tool).
 *
 * @example lowerTests(entry, catalogue, null).examples[0]?.title // the first example's description
 */
export function lowerTests(entry: CatalogueEntry, catalogue: Catalogue, plan: ChainPlan | null): ToolTests {
  const baseContext = contextFor(entry, catalogue);
  const run = (
    title: string,
    context: ContextDoc | undefined,
    stubs: Readonly<Record<string, Stub>> | undefined,
    input: Input,
  ): TestRun => ({
    title,
    context: testContext(context ?? baseContext),
    stubs: stubs && Object.keys(stubs).length > 0 ? stubs : null,
    input,
    // Error scenarios may pass input the types forbid on purpose, and a nested object may carry a field
    // its type does not declare (the schema lets it through): the test says so with a cast.
    castsInput: literalErrors(entry.inputSchema, input).length > 0 || undeclaredField(entry.parameters, input),
  });
  const examples = (entry.document.examples ?? []).map((example) => ({
    ...run(example.description, example.context, example.stubs, example.input),
    expected: example.expected_output === undefined ? null : { value: example.expected_output },
  }));
  const errorScenarios = (entry.document.error_scenarios ?? []).map((scenario) => {
    const { message_contains: messageContains, ...rest } = scenario.expected_error;
    return {
      ...run(scenario.description, scenario.context, scenario.stubs, scenario.input),
      expectedError: rest,
      messageContains: messageContains ?? null,
    };
  });
  const failurePolicy = plan ? failurePolicyTest(entry, plan, baseContext, run) : null;
  return { examples, errorScenarios, failurePolicy };
}

/**
 * A test derived from the first step's `on_failure`: its tool is made to fail, and the test asserts
 * what the policy promises (attempts, waits, audit records, where the chain goes).
 */
function failurePolicyTest(
  entry: CatalogueEntry,
  plan: ChainPlan,
  context: ContextDoc,
  run: (title: string, context: ContextDoc, stubs: Record<string, Stub>, input: Input) => TestRun,
): FailurePolicyTest | null {
  // The step that runs first: the entry, or in a DAG a step that depends on nothing.
  const step =
    plan.mode === 'dag'
      ? plan.steps.find((candidate) => (candidate.dependsOn ?? []).length === 0)
      : plan.steps.find((candidate) => candidate.id === plan.entry);
  // The test makes its tool fail: a block has no tool of its own, and a step with `when` may not run.
  if (!step || step.kind !== 'call' || step.when !== undefined) return null;
  const policy = step.onFailure;
  // The injected failure is an execution error with no code: retried only if the policy retries those.
  const retries = policy.action === 'retry' && retriesKind(policy, 'execution') ? policy.maxRetries : 0;
  // The wait before each attempt: none before the first, then the backoff (the test executor's jitter draws 0.5).
  const waits = [0, ...(policy.action === 'retry' ? promisedWaits(policy.backoff, retries) : [])];
  const after = policy.action === 'retry' ? policy.afterRetries : policy;
  const fallback = step.fallbacks?.find((name) => name !== step.tool) ?? null;
  const retried = retries > 0 ? `retries ${retries} time${retries === 1 ? '' : 's'}, then ` : '';
  const outcome = fallback
    ? `is served by its fallback '${fallback}'`
    : after.action === 'stop'
      ? 'stops the chain'
      : 'continues';
  const example = entry.document.examples?.[0];
  const sampled = sampleInput(entry);
  const input = { ...sampled, ...(example?.input ?? {}) } as Input;
  // An input the tool would refuse makes a test of validation, not of the policy: no test rather than a wrong one.
  if (Object.values(sampled).includes(undefined) || schemaErrors(entry.inputSchema, input).length > 0) return null;
  return {
    ...run(
      `when step '${step.id}' fails, on_failure ${policy.action} ${retried}${outcome}`,
      example?.context ?? context,
      { [step.tool]: { error: 'injected failure' } },
      input,
    ),
    step: step.id,
    attempts: retries + 1,
    waits,
    servedBy: fallback,
    dag: plan.mode === 'dag',
    stops: !fallback && after.action === 'stop',
    nextStep: !fallback && after.action === 'continue' && after.next !== null ? after.next : null,
  };
}

/** Whether a value has an object field its declared fields (at any depth) do not name. */
function undeclaredField(fields: readonly ParameterDoc[], value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.entries(value).some(([key, inner]) => {
    const field = fields.find((candidate) => candidate.name === key);
    return !field || undeclaredIn(field, inner);
  });
}

function undeclaredIn(shape: ShapeDoc, value: unknown): boolean {
  if (Array.isArray(value)) return shape.items !== undefined && value.some((item) => undeclaredIn(shape.items!, item));
  return shape.properties !== undefined && undeclaredField(shape.properties, value);
}

/** The YAML's `context` as the test executor takes it. */
function testContext(context: ContextDoc): TestContext {
  const out: { -readonly [K in keyof TestContext]: TestContext[K] } = {};
  if (context.user_id !== undefined) out.userId = context.user_id;
  if (context.session_id !== undefined) out.sessionId = context.session_id;
  if (context.casefile_id !== undefined) out.casefileId = context.casefile_id;
  if (context.permissions !== undefined) out.permissions = context.permissions;
  return out;
}

/** A context that satisfies the policies of the tool and of every tool it calls. */
function contextFor(entry: CatalogueEntry, catalogue: Catalogue): ContextDoc {
  const { permissions, casefile } = requiredPolicies(entry.name, catalogue);
  return {
    user_id: 'test_user',
    session_id: 'test_session',
    casefile_id: casefile ? 'test_casefile' : null,
    permissions: [...permissions].sort(),
  };
}

/** Values for every parameter that meet its constraints (undefined where none was found), for tests that need a valid input the YAML did not give. */
function sampleInput(entry: CatalogueEntry): Record<string, JsonValue | undefined> {
  const input: Record<string, JsonValue | undefined> = {};
  for (const parameter of entry.parameters) input[parameter.name] = parameter.default ?? sampleValue(parameter);
  return input;
}
