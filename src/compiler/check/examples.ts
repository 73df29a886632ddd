/**
 * Checks the `examples` and `error_scenarios` that the generated tests are made from: example input
 * must be valid input, and stubs must name tools that exist.
 */
import { closestName } from '../../language/suggest.js';
import { literalErrors } from './literals.js';
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { Catalogue, CatalogueEntry } from '../resolve/catalogue.js';

export function checkExamples(entry: CatalogueEntry, catalogue: Catalogue): Diagnostic[] {
  const { document, source } = entry;
  const diagnostics: Diagnostic[] = [];
  const examples = document.examples ?? [];
  const scenarios = document.error_scenarios ?? [];
  if (entry.kind === 'function' && examples.length === 0 && scenarios.length === 0) {
    diagnostics.push(diagnostic('NO_EXAMPLES', { tool: entry.name }, source.locate(['name'])));
  }
  examples.forEach((example, index) => {
    const problems = literalErrors(entry.inputSchema, example.input);
    if (problems.length > 0) {
      diagnostics.push(diagnostic('EXAMPLE_INPUT', { tool: entry.name, problems: problems.join('; ') }, source.locate(['examples', index, 'input'])));
    }
  });
  const checkStubs = (list: 'examples' | 'error_scenarios', index: number, stubs: Readonly<Record<string, unknown>> | undefined) => {
    for (const name of Object.keys(stubs ?? {})) {
      if (catalogue.get(name) || catalogue.isBroken(name)) continue;
      diagnostics.push(diagnostic('UNKNOWN_STUB', { name }, source.locate([list, index, 'stubs', name], { key: true }), { suggestion: closestName(name, catalogue.names()) }));
    }
  };
  examples.forEach((example, index) => checkStubs('examples', index, example.stubs));
  scenarios.forEach((scenario, index) => checkStubs('error_scenarios', index, scenario.stubs));
  return diagnostics;
}
