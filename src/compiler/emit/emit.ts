/**
 * Stage 6: TypeScript modules, tests and the index, rendered from the handlebars templates in
 * `templates/`. Everything that must be exact (string literals, types) is printed here; the
 * templates hold the shape of the files.
 */
import path from 'node:path';
import type { JsonSchema } from '../../language/json.js';
import { defaultAuditEvents, DEFAULTS, type ChainPlan } from '../../language/plan.js';
import type { TestContext } from '../../language/testing.js';
import { promisedWaits, retries as retriesKind } from '../lower/promises.js';
import type { CompositeAnalysis } from '../check/composite.js';
import { calleesOf } from '../check/callees.js';
import { stateSchema } from '../check/state-types.js';
import type { ContextDoc, ExampleDoc, ErrorScenarioDoc, ShapeDoc, StubDoc } from '../model.js';
import type { Catalogue, CatalogueEntry } from '../resolve/catalogue.js';
import { resolveModuleFile } from '../resolve/handlers.js';
import { literalErrors } from '../check/literals.js';
import { docComment, objectMembers, printValue, quote, schemaType } from './print.js';
import type { TemplateSet } from './templates.js';

export interface OutputFile {
  /** Absolute path. */
  readonly path: string;
  readonly content: string;
}

export interface EmitContext {
  readonly templates: TemplateSet;
  readonly catalogue: Catalogue;
  /** The project root: banners and imports are written relative to it. */
  readonly root: string;
  readonly outDir: string;
}

export function outputPaths(outDir: string, entry: CatalogueEntry): { module: string; test: string } {
  return {
    module: path.join(outDir, 'tools', `${entry.names.fileSlug}.ts`),
    test: path.join(outDir, 'tests', `${entry.names.fileSlug}.test.ts`),
  };
}

const posix = (p: string) => p.split(path.sep).join('/');

export function emitTool(entry: CatalogueEntry, ctx: EmitContext, composite: { analysis: CompositeAnalysis; plan: ChainPlan } | null): OutputFile[] {
  const { names, document } = entry;
  const paths = outputPaths(ctx.outDir, entry);
  const source = posix(path.relative(ctx.root, entry.source.absolutePath));
  const paramsName = `${names.typeName}Params`;
  const common = {
    source,
    nameLiteral: quote(entry.name),
    nameComment: entry.name.replaceAll('*/', '*\\/').replaceAll('\n', ' '),
    descriptionLiteral: quote(document.description),
    definitionName: `${names.functionName}Definition`,
    functionName: names.functionName,
    paramsName,
    paramsType: `${docComment(`Parameters of \`${entry.name}\`.`)}export type ${paramsName} = ${objectTypeLiteral(entry.inputSchema)};`,
    parameters: printValue(entry.inputSchema, '  '),
    policies: printValue(
      {
        requiresCasefile: document.policies?.requires_casefile ?? DEFAULTS.policies.requiresCasefile,
        requiredPermissions: document.policies?.required_permissions ?? DEFAULTS.policies.requiredPermissions,
        timeoutSeconds: document.policies?.timeout_seconds ?? DEFAULTS.policies.timeoutSeconds,
      },
      '  ',
    ),
    audit: printValue(
      {
        successEvent: document.audit?.success_event ?? defaultAuditEvents(entry.name).successEvent,
        failureEvent: document.audit?.failure_event ?? defaultAuditEvents(entry.name).failureEvent,
        redactFields: document.audit?.redact_fields ?? [],
      },
      '  ',
    ),
    functionDoc: docComment([document.display_name, document.description].filter(Boolean).join('\n\n')),
  };

  let module: string;
  if (composite) {
    const stateName = `${names.typeName}State`;
    const state = stateSchema(composite.analysis.state);
    module = ctx.templates.render('composite-tool', {
      ...common,
      stateName,
      stateType: `${docComment(`The state of \`${entry.name}\` at the end of a run: its parameters and the outputs its steps map.`)}export type ${stateName} = ${objectTypeLiteral(state)};`,
      plan: printValue(composite.plan),
      returns: printValue(state, '  '),
    });
  } else {
    const resultName = `${names.typeName}Result`;
    const handler = entry.handler!;
    const defaulted = entry.parameters.filter((p) => p.default !== undefined).map((p) => p.name);
    const inputName = `${names.typeName}Input`;
    const inputSchema = { ...entry.inputSchema, required: [...(entry.inputSchema['required'] as string[]), ...defaulted] };
    const file = resolveModuleFile(handler.modulePath) ?? handler.modulePath;
    let specifier = posix(path.relative(path.dirname(paths.module), file)).replace(/\.(m?)tsx?$/, '.$1js');
    if (!specifier.startsWith('.')) specifier = `./${specifier}`;
    module = ctx.templates.render('function-tool', {
      ...common,
      resultName,
      resultType: resultDeclaration(resultName, entry),
      inputType: defaulted.length > 0 ? `${docComment(`What the handler of \`${entry.name}\` receives: the parameters, defaults filled in.`)}export type ${inputName} = ${objectTypeLiteral(inputSchema)};` : null,
      typeArguments: defaulted.length > 0 ? `${paramsName}, ${resultName}, ${inputName}` : `${paramsName}, ${resultName}`,
      returns: printValue(entry.returns, '  '),
      handler: { exportName: handler.exportName, localName: `${names.functionName}Handler`, specifier: quote(specifier) },
    });
  }
  const files = [{ path: paths.module, content: tidy(module) }];
  const view = testView(entry, ctx, composite, common);
  // A function tool without examples has nothing to test (the compiler warns about it).
  if (view.examples.length > 0 || view.errorScenarios.length > 0 || view.failurePolicy) {
    files.push({ path: paths.test, content: tidy(ctx.templates.render('tool-test', view)) });
  }
  return files;
}

export function emitIndex(entries: readonly Pick<CatalogueEntry, 'name' | 'names'>[], ctx: EmitContext, configDir: string): OutputFile {
  const tools = entries.map((entry) => ({ definitionName: `${entry.names.functionName}Definition`, fileSlug: entry.names.fileSlug }));
  const content = ctx.templates.render('index', { configDir: posix(path.relative(ctx.root, configDir)) || '.', tools });
  return { path: path.join(ctx.outDir, 'index.ts'), content: tidy(content) };
}

/** An object type literal. Type aliases, not interfaces: they are assignable to `Record<string, unknown>`. */
function objectTypeLiteral(schema: JsonSchema): string {
  const members = objectMembers(schema, '  ');
  return members ? `{\n${members}}` : '{}';
}

function resultDeclaration(name: string, entry: CatalogueEntry): string {
  const doc = docComment(`What \`${entry.name}\` returns.`);
  const returns = entry.returns;
  if (returns && returns['type'] === 'object' && returns['properties']) return `${doc}export type ${name} = ${objectTypeLiteral(returns)};`;
  return `${doc}export type ${name} = ${schemaType(returns)};`;
}

/** Collapses the blank lines that template conditionals leave behind. */
function tidy(text: string): string {
  return `${text.replace(/\n{3,}/g, '\n\n').replace(/\n\n(\}\);?)\n*$/, '\n$1').trimEnd()}\n`;
}

interface CommonView {
  readonly nameLiteral: string;
  readonly functionName: string;
  readonly definitionName: string;
  readonly paramsName: string;
}

function testView(entry: CatalogueEntry, ctx: EmitContext, composite: { analysis: CompositeAnalysis; plan: ChainPlan } | null, common: CommonView) {
  const baseContext = contextFor(entry, ctx.catalogue);
  let castsInput = false;
  const inputFor = (input: Record<string, unknown>) => {
    const printed = printValue(input, '    ');
    // Error scenarios may pass input the types forbid on purpose: say so instead of failing to compile.
    if (literalErrors(entry.inputSchema, input).length === 0) return printed;
    castsInput = true;
    return `${printed} as unknown as ${common.paramsName}`;
  };
  const options = (context: ContextDoc | undefined, stubs: Readonly<Record<string, StubDoc>> | undefined) => {
    const value: Record<string, unknown> = { context: testContext(context ?? baseContext) };
    if (stubs && Object.keys(stubs).length > 0) value['stubs'] = stubs;
    return printValue(value, '    ');
  };
  const examples = (entry.document.examples ?? []).map((example: ExampleDoc) => {
    const expected = example.expected_output;
    return {
      title: quote(example.description),
      options: options(example.context, example.stubs),
      input: inputFor(example.input),
      expected: expected === undefined ? null : printValue(expected, '    '),
      matcher: typeof expected === 'object' && expected !== null && !Array.isArray(expected) ? 'toMatchObject' : 'toEqual',
    };
  });
  const errorScenarios = (entry.document.error_scenarios ?? []).map((scenario: ErrorScenarioDoc) => {
    const { message_contains: messageContains, ...rest } = scenario.expected_error;
    return {
      title: quote(scenario.description),
      options: options(scenario.context, scenario.stubs),
      input: inputFor(scenario.input),
      expected: printValue(rest, '    '),
      messageContains: messageContains === undefined ? null : quote(messageContains),
    };
  });
  const view = {
    ...common,
    source: posix(path.relative(ctx.root, entry.source.absolutePath)),
    fileSlug: entry.names.fileSlug,
    composite: composite !== null,
    examples,
    errorScenarios,
    failurePolicy: composite ? failurePolicyTest(entry, composite.plan, baseContext, options, inputFor) : null,
  };
  return { ...view, typeImport: castsInput ? `, type ${common.paramsName}` : '' };
}

/**
 * A test derived from the first step's `on_failure`: its tool is made to fail, and the test asserts
 * what the policy promises (attempts, waits, audit records, where the chain goes).
 */
function failurePolicyTest(
  entry: CatalogueEntry,
  plan: ChainPlan,
  context: ContextDoc,
  options: (context: ContextDoc, stubs: Record<string, StubDoc>) => string,
  inputFor: (input: Record<string, unknown>) => string,
) {
  // The step that runs first: the entry, or in a DAG a step that depends on nothing.
  const step = plan.mode === 'dag' ? plan.steps.find((candidate) => (candidate.dependsOn ?? []).length === 0) : plan.steps.find((candidate) => candidate.id === plan.entry);
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
  const outcome = fallback ? `is served by its fallback '${fallback}'` : after.action === 'stop' ? 'stops the chain' : 'continues';
  const example = entry.document.examples?.[0];
  const input = { ...sampleInput(entry), ...(example?.input ?? {}) };
  return {
    title: quote(`when step '${step.id}' fails, on_failure ${policy.action} ${retried}${outcome}`),
    options: options(example?.context ?? context, { [step.tool]: { error: 'injected failure' } }),
    input: inputFor(input),
    step: quote(step.id),
    attempts: retries + 1,
    waits: printValue(waits.map((wait) => [step.id, wait]), '    '),
    audited: printValue(waits.map((_, n) => [step.id, n + 1, 'failed']), '    '),
    servedBy: fallback ? quote(fallback) : null,
    // In a DAG, independent steps interleave: the step's own attempts are picked out by its id.
    dag: plan.mode === 'dag',
    stops: !fallback && after.action === 'stop',
    nextStep: !fallback && after.action === 'continue' && after.next !== null ? quote(after.next) : null,
  };
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
  const permissions = new Set<string>();
  let casefile = false;
  const seen = new Set<string>();
  const visit = (name: string) => {
    const tool = catalogue.get(name);
    if (!tool || seen.has(name)) return;
    seen.add(name);
    for (const permission of tool.document.policies?.required_permissions ?? []) permissions.add(permission);
    casefile ||= tool.document.policies?.requires_casefile === true;
    for (const callee of calleesOf(tool.document)) visit(callee);
  };
  visit(entry.name);
  return { user_id: 'test_user', session_id: 'test_session', casefile_id: casefile ? 'test_casefile' : null, permissions: [...permissions].sort() };
}

/** Plausible values for every parameter, for tests that need a valid input the YAML did not give. */
function sampleInput(entry: CatalogueEntry): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const parameter of entry.parameters) input[parameter.name] = parameter.default ?? sample(parameter);
  return input;
}

function sample(shape: ShapeDoc): unknown {
  if (shape.enum) return shape.enum[0];
  switch (shape.type) {
    case 'integer':
    case 'number':
      return shape.min_value ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return 'x'.repeat(Math.max(shape.min_length ?? 0, 1));
  }
}
