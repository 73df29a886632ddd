/**
 * Stage 6: TypeScript modules, tests and the index, rendered from the handlebars templates in
 * `templates/`. Everything that must be exact (string literals, types) is printed here; the
 * templates hold the shape of the files. Emit prints what lowering decided, and decides nothing else.
 */
import type { JsonSchema } from '../../language/json.js';
import type { LoweredIndex, LoweredTool, TestRun } from '../lower/unit.js';
import { docComment, objectMembers, printValue, quote, schemaType } from './print.js';
import type { TemplateSet } from './templates.js';

export interface OutputFile {
  /** Absolute path. */
  readonly path: string;
  readonly content: string;
}

/**
 * The module of a tool, and its test when it has one.
 *
 * @example emitTool(unit, templates).map((file) => file.path) // ['/p/generated/tools/echo.ts', '/p/generated/tests/echo.test.ts']
 */
export function emitTool(unit: LoweredTool, templates: TemplateSet): OutputFile[] {
  const { names, implementation } = unit;
  const paramsName = `${names.typeName}Params`;
  const common = {
    source: unit.source,
    nameLiteral: quote(unit.name),
    nameComment: unit.name.replaceAll('*/', '*\\/').replaceAll('\n', ' '),
    descriptionLiteral: quote(unit.description),
    definitionName: `${names.functionName}Definition`,
    functionName: names.functionName,
    paramsName,
    paramsType: `${docComment(`Parameters of \`${unit.name}\`.`)}export type ${paramsName} = ${objectTypeLiteral(unit.parameters)};`,
    parameters: printValue(unit.parameters, '  '),
    policies: printValue(unit.policies, '  '),
    audit: printValue(unit.audit, '  '),
    functionDoc: docComment([unit.displayName, unit.description].filter(Boolean).join('\n\n')),
  };

  let module: string;
  if (implementation.kind === 'composite') {
    const stateName = `${names.typeName}State`;
    module = templates.render('composite-tool', {
      ...common,
      stateName,
      stateType: `${docComment(`The state of \`${unit.name}\` at the end of a run: its parameters and the outputs its steps map.`)}export type ${stateName} = ${objectTypeLiteral(implementation.state)};`,
      plan: printValue(implementation.plan),
      // A composite that may suspend says so in its result type, so callers handle `status: 'suspended'`.
      resultType: implementation.suspends ? `ChainResult<${stateName}, true>` : `ChainResult<${stateName}>`,
      typeArguments: implementation.suspends ? `<${common.paramsName}, ${stateName}, true>` : '',
      returns: printValue(implementation.state, '  '),
    });
  } else {
    const resultName = `${names.typeName}Result`;
    const inputName = `${names.typeName}Input`;
    const { handlerInput } = implementation;
    module = templates.render('function-tool', {
      ...common,
      resultName,
      resultType: resultDeclaration(resultName, unit.name, implementation.returns),
      inputType: handlerInput ? `${docComment(`What the handler of \`${unit.name}\` receives: the parameters, defaults filled in.`)}export type ${inputName} = ${objectTypeLiteral(handlerInput)};` : null,
      typeArguments: handlerInput ? `${paramsName}, ${resultName}, ${inputName}` : `${paramsName}, ${resultName}`,
      returns: printValue(implementation.returns, '  '),
      handler: { exportName: implementation.handler.exportName, localName: `${names.functionName}Handler`, specifier: quote(implementation.handler.specifier) },
    });
  }
  const files = [{ path: unit.paths.module, content: tidy(module) }];
  const { tests } = unit;
  // A function tool without examples has nothing to test (the compiler warns about it).
  if (tests.examples.length > 0 || tests.errorScenarios.length > 0 || tests.failurePolicy) {
    files.push({ path: unit.paths.test, content: tidy(templates.render('tool-test', testView(unit, common))) });
  }
  return files;
}

/**
 * The index: every definition, `generatedTools`, `createToolRegistry()`.
 *
 * @example emitIndex({ path: '/p/generated/index.ts', source: 'config/tools', tools: [] }, templates).path // '/p/generated/index.ts'
 */
export function emitIndex(index: LoweredIndex, templates: TemplateSet): OutputFile {
  const tools = index.tools.map((tool) => ({ definitionName: `${tool.names.functionName}Definition`, fileSlug: tool.names.fileSlug }));
  return { path: index.path, content: tidy(templates.render('index', { source: index.source, tools })) };
}

/** The view of the test template: each case printed. */
function testView(unit: LoweredTool, common: { readonly paramsName: string }) {
  const { tests } = unit;
  const input = (run: TestRun) => {
    const printed = printValue(run.input, '    ');
    return run.castsInput ? `${printed} as unknown as ${common.paramsName}` : printed;
  };
  const options = (run: TestRun) => printValue(run.stubs ? { context: run.context, stubs: run.stubs } : { context: run.context }, '    ');
  const examples = tests.examples.map((example) => ({
    title: quote(example.title),
    options: options(example),
    input: input(example),
    expected: example.expected === null ? null : printValue(example.expected.value, '    '),
    matcher: typeof example.expected?.value === 'object' && example.expected.value !== null && !Array.isArray(example.expected.value) ? 'toMatchObject' : 'toEqual',
  }));
  const errorScenarios = tests.errorScenarios.map((scenario) => ({
    title: quote(scenario.title),
    options: options(scenario),
    input: input(scenario),
    expected: printValue(scenario.expectedError, '    '),
    messageContains: scenario.messageContains === null ? null : quote(scenario.messageContains),
  }));
  const policy = tests.failurePolicy;
  const failurePolicy = policy && {
    title: quote(policy.title),
    options: options(policy),
    input: input(policy),
    step: quote(policy.step),
    attempts: policy.attempts,
    waits: printValue(policy.waits.map((wait) => [policy.step, wait]), '    '),
    audited: printValue(policy.waits.map((_, n) => [policy.step, n + 1, 'failed']), '    '),
    servedBy: policy.servedBy === null ? null : quote(policy.servedBy),
    dag: policy.dag,
    stops: policy.stops,
    nextStep: policy.nextStep === null ? null : quote(policy.nextStep),
  };
  const castsInput = [...tests.examples, ...tests.errorScenarios, ...(policy ? [policy] : [])].some((run) => run.castsInput);
  return {
    ...common,
    fileSlug: unit.names.fileSlug,
    composite: unit.implementation.kind === 'composite',
    examples,
    errorScenarios,
    failurePolicy,
    typeImport: castsInput ? `, type ${common.paramsName}` : '',
  };
}

/** An object type literal. Type aliases, not interfaces: they are assignable to `Record<string, unknown>`. */
function objectTypeLiteral(schema: JsonSchema): string {
  const members = objectMembers(schema, '  ');
  return members ? `{\n${members}}` : '{}';
}

function resultDeclaration(name: string, tool: string, returns: JsonSchema | null): string {
  const doc = docComment(`What \`${tool}\` returns.`);
  if (returns && returns['type'] === 'object' && returns['properties']) return `${doc}export type ${name} = ${objectTypeLiteral(returns)};`;
  return `${doc}export type ${name} = ${schemaType(returns)};`;
}

/** Collapses the blank lines that template conditionals leave behind. */
function tidy(text: string): string {
  return `${text.replace(/\n{3,}/g, '\n\n').replace(/\n\n(\}\);?)\n*$/, '\n$1').trimEnd()}\n`;
}
