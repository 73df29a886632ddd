/**
 * `toolgen graph NAME`: prints a composite's Mermaid flowchart, the one in `generated/graphs/NAME.md`.
 * When nothing changed since the last build and the graph file on disk is the one that build wrote,
 * it is read from there; otherwise (after an edit) the tool and what it is connected to are checked
 * and lowered in memory, with no TypeScript (handlers are not type-checked, and their exports are
 * what the last build read when their text is the same) and nothing emitted: a picture needs neither.
 * `npm run bench` measures that against a cached `validate` (target: at most 3x).
 */
import { readFileSync } from 'node:fs';
import { hasErrors } from '../compiler/diagnostics/diagnostic.js';
import { outputsMatch } from '../compiler/cache/build-cache.js';
import type { CompilerOptions } from '../compiler/options.js';
import { deriveNames } from '../compiler/names.js';
import { toolPaths } from '../compiler/layout.js';
import { newCompiler, openCache, type OpenCache } from './cache.js';
import { EXIT, projectSettings, UsageError, type CommandOptions } from './commands.js';
import { printDiagnostics, type Output } from './output.js';

/** Prints the flowchart on stdout, ready for `mmdc` or a Markdown fence; nothing is written. */
export async function graphCommand(name: string, options: CommandOptions, output: Output): Promise<number> {
  const settings = await projectSettings(options, output);
  const cache = await openCache(settings, options.cache !== false);
  const written = writtenGraph(settings, name, cache);
  if (written !== null) {
    output.out(written);
    return EXIT.ok;
  }
  const { mermaidFlowchart } = await import('../compiler/emit/mermaid.js');
  // What the last build learnt of the handler modules spares parsing them with TypeScript again.
  const compiler = await newCompiler({ ...settings, checkHandlerTypes: false, emit: false }, cache);
  const result = await compiler.build([name]);
  const plan = result.plans.get(name);
  if (!plan) {
    // A name no tool has is the user's mistake on the command line, not in the YAML.
    const unknown = result.diagnostics.find((d) => d.id === 'UNKNOWN_NAME');
    if (unknown) throw new UsageError(unknown.message);
    if (hasErrors(result.diagnostics)) {
      printDiagnostics(output, result.diagnostics, result.sources);
      return EXIT.problems;
    }
    throw new UsageError(`'${name}' is an atomic tool; only a composite has a graph`);
  }
  output.out(mermaidFlowchart(plan));
  return EXIT.ok;
}

/**
 * The flowchart in `generated/graphs/<slug>.md` when the build cache vouches for it: no input changed
 * since the last run without errors, and every generated file is as that run left it. Null otherwise.
 */
function writtenGraph(settings: CompilerOptions, name: string, cache: OpenCache | null): string | null {
  const hit = cache?.hit;
  if (!hit?.outputs || hasErrors(hit.diagnostics) || !outputsMatch(hit, settings.outDir)) return null;
  const file = toolPaths(settings.outDir, deriveNames(name).fileSlug).graph;
  if (!Object.hasOwn(hit.outputs, file)) return null;
  const fence = /^```mermaid\n([\s\S]*?)^```$/m.exec(readFileSync(file, 'utf8'));
  return fence ? fence[1]!.replace(/\n$/, '') : null;
}
