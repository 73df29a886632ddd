/** `toolgen graph NAME`: prints a composite's Mermaid flowchart, the one in `generated/graphs/NAME.md`. */
import { closestName } from '../language/suggest.js';
import { mermaidFlowchart } from '../compiler/emit/mermaid.js';
import { hasErrors } from '../compiler/diagnostics/diagnostic.js';
import { compilerFor, EXIT, UsageError, type CommandOptions } from './commands.js';
import { printDiagnostics, type Output } from './output.js';

/** Builds in memory (nothing is written) and prints the flowchart on stdout, ready for `mmdc` or a Markdown fence. */
export async function graphCommand(name: string, options: CommandOptions, output: Output): Promise<number> {
  const { compiler } = await compilerFor(options, output);
  const result = await compiler.build();
  const plan = result.plans.get(name);
  if (!plan) {
    if (hasErrors(result.diagnostics)) {
      printDiagnostics(output, result.diagnostics, result.sources);
      return EXIT.problems;
    }
    const known = result.built;
    if (known.includes(name)) throw new UsageError(`'${name}' is an atomic tool; only a composite has a graph`);
    const suggestion = closestName(name, known);
    throw new UsageError(`no tool named '${name}'${suggestion ? ` (did you mean '${suggestion}'?)` : ''}`);
  }
  output.out(mermaidFlowchart(plan));
  return EXIT.ok;
}
