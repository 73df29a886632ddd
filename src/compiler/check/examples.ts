/**
 * Checks the `examples` and `error_scenarios` that the generated tests are made from, so a test that
 * cannot pass is a build error, not a red test: example input must be valid input (pointed at the
 * field), stubs must name tools that exist and return what they declare, `expected_output` must name
 * what the tool can return, `expected_error.step` a step that exists, and an example's own context
 * must grant what the tools it calls require.
 */
import type { JsonSchema, JsonValue } from '../../language/json.js';
import { isSuccessStatus } from '../../language/http-status.js';
import { isPlainObject } from '../../language/json.js';
import { closestName } from '../../language/suggest.js';
import { literalErrors, literalIssues } from './literals.js';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { plainList, quotedList } from '../diagnostics/format.js';
import type { YamlPath } from '../load/source.js';
import type { StubDoc } from '../model.js';
import type { Catalogue, CatalogueEntry } from '../resolve/catalogue.js';
import { requiredPermissions } from './callees.js';
import { schemaAt } from './schema-path.js';
import { missingTool } from './tool-names.js';

/** What the examples are checked against beyond the catalogue: what each tool returns, and a composite's step ids. */
export interface ExampleScope {
  readonly returnsOf: (name: string) => JsonSchema | null;
  /** The composite's step ids, nested ones included; null for a function tool. */
  readonly stepIds: readonly string[] | null;
}

/**
 * Every problem of a tool's examples and error scenarios.
 *
 * @example checkExamples(entry, catalogue, { returnsOf, stepIds: ['search', 'upload'] }) // [] when every test can pass
 */
export function checkExamples(entry: CatalogueEntry, catalogue: Catalogue, scope: ExampleScope): Diagnostic[] {
  const { document, source } = entry;
  const diagnostics: Diagnostic[] = [];
  const examples = document.examples ?? [];
  const scenarios = document.error_scenarios ?? [];
  if (entry.kind === 'function' && examples.length === 0 && scenarios.length === 0) {
    diagnostics.push(diagnostic('NO_EXAMPLES', { tool: entry.name }, source.locate(['name'])));
  }
  const permissions = requiredPermissions(entry.name, catalogue);
  examples.forEach((example, index) => {
    const issues = literalIssues(entry.inputSchema, example.input);
    if (issues.length > 0) {
      // At the first field at fault: the rest are in the message.
      const at = issues[0]!.path;
      const where = source.locate(['examples', index, 'input', ...at], {
        key: at.length > 0 && issues[0]!.message.includes('unknown field'),
      });
      diagnostics.push(
        diagnostic(
          'EXAMPLE_INPUT',
          { tool: entry.name, problems: issues.map((issue) => issue.message).join('; ') },
          where,
        ),
      );
    }
    const expected = example.expected_output;
    if (entry.kind === 'composite' && expected !== undefined && !isPlainObject(expected)) {
      const given = expected === null ? 'null' : Array.isArray(expected) ? 'a list' : `a ${typeof expected}`;
      diagnostics.push(
        diagnostic('COMPOSITE_EXPECTED_OUTPUT', { given }, source.locate(['examples', index, 'expected_output'])),
      );
    }
    const returns = scope.returnsOf(entry.name);
    if (isPlainObject(expected) && returns) {
      for (const key of Object.keys(expected)) {
        const lookup = schemaAt(returns, [key]);
        if (lookup.kind !== 'missing') continue;
        const what = entry.kind === 'composite' ? 'its final state' : 'its returns';
        diagnostics.push(
          diagnostic(
            'EXPECTED_OUTPUT_NEVER_SET',
            { key, tool: entry.name, what, fields: plainList(lookup.known, 'nothing') },
            source.locate(['examples', index, 'expected_output', key], { key: true }),
            { suggestion: closestName(key, lookup.known) },
          ),
        );
      }
    }
    // An example states what a run with this context does: it must be allowed to run.
    // A context the example writes replaces the test's default one (which grants everything needed).
    if (example.context) {
      const granted = example.context.permissions ?? [];
      const missing = permissions.filter((permission) => !granted.includes(permission));
      const at: YamlPath = example.context.permissions
        ? ['examples', index, 'context', 'permissions']
        : ['examples', index, 'context'];
      if (missing.length > 0)
        diagnostics.push(
          diagnostic(
            'EXAMPLE_MISSING_PERMISSION',
            { permissions: quotedList(missing), tool: entry.name },
            source.locate(at),
          ),
        );
    }
  });
  scenarios.forEach((scenario, index) => {
    const step = scenario.expected_error.step;
    if (step === undefined || scope.stepIds === null || scope.stepIds.includes(step)) return;
    diagnostics.push(
      diagnostic(
        'UNKNOWN_STEP_REFERENCE',
        { step },
        source.locate(['error_scenarios', index, 'expected_error', 'step']),
        { suggestion: closestName(step, scope.stepIds) },
      ),
    );
  });
  const checkStubs = (
    list: 'examples' | 'error_scenarios',
    index: number,
    stubs: Readonly<Record<string, StubDoc>> | undefined,
  ) => {
    for (const [name, stub] of Object.entries(stubs ?? {})) {
      const at: YamlPath = [list, index, 'stubs', name];
      const missing = missingTool(name, catalogue, source.locate(at, { key: true }), 'stub');
      if (missing) {
        diagnostics.push(missing);
        continue;
      }
      diagnostics.push(...stubResponseProblems(name, stub, at, catalogue, source));
      const returns = scope.returnsOf(name);
      if (!returns) continue;
      for (const { output, path } of stubOutputs(stub, at)) {
        const problems = literalErrors(returns, output);
        if (problems.length > 0)
          diagnostics.push(
            diagnostic(
              'STUB_OUTPUT_INVALID',
              { tool: name, problems: problems.map((p) => p.replace(/^output: /, '')).join('; ') },
              source.locate(path),
            ),
          );
      }
    }
  };
  examples.forEach((example, index) => checkStubs('examples', index, example.stubs));
  scenarios.forEach((scenario, index) => checkStubs('error_scenarios', index, scenario.stubs));
  return diagnostics;
}

/**
 * What is wrong with the `response`s a stub gives (an API operation's status and headers): one on a
 * tool that is not an operation, beside an `error` or a `sequence`, or with a status the operation
 * does not list as a success. The schema checked the rest (an integer status, text headers).
 */
function stubResponseProblems(
  name: string,
  stub: StubDoc,
  at: YamlPath,
  catalogue: Catalogue,
  source: CatalogueEntry['source'],
): Diagnostic[] {
  const responses =
    'sequence' in stub
      ? stub.sequence.map((item, index) => ({ item, path: [...at, 'sequence', index] }))
      : [{ item: stub, path: at }];
  // A tool whose YAML or pin is broken is reported already: what it is cannot be told.
  if (catalogue.isBroken(name)) return [];
  const remote = catalogue.remote(name);
  const success = remote?.via === 'api' ? Object.keys(remote.pin.responses) : null;
  const problems: Diagnostic[] = [];
  if ('sequence' in stub && stub.response !== undefined)
    problems.push(diagnostic('STUB_RESPONSE_BESIDE_SEQUENCE', {}, source.locate([...at, 'response'], { key: true })));
  for (const { item, path } of responses) {
    if (item.response === undefined) continue;
    const where = source.locate([...path, 'response'], { key: true });
    if ('error' in item) problems.push(diagnostic('STUB_RESPONSE_WITH_ERROR', {}, where));
    else if (success === null) problems.push(diagnostic('STUB_RESPONSE_NOT_API', { tool: name }, where));
    else if (item.response.status !== undefined && !isSuccessStatus(item.response.status, success))
      problems.push(
        diagnostic(
          'STUB_RESPONSE_STATUS',
          { status: String(item.response.status), tool: name, statuses: success.join(', ') },
          source.locate([...path, 'response', 'status']),
        ),
      );
  }
  return problems;
}

/** The outputs a stub gives, with where each is written. */
function stubOutputs(stub: StubDoc, at: YamlPath): { output: JsonValue; path: YamlPath }[] {
  if ('output' in stub) return [{ output: stub.output, path: [...at, 'output'] }];
  if ('sequence' in stub)
    return stub.sequence.flatMap((response, index) =>
      'output' in response ? [{ output: response.output, path: [...at, 'sequence', index, 'output'] }] : [],
    );
  return [];
}
