/**
 * `toolgen graph NAME`: prints a composite's Mermaid flowchart, the one in `generated/graphs/NAME.md`.
 * A picture costs what a cached `validate` costs: when nothing changed since the last build and the
 * graph file on disk is the one that build wrote, it is read from there; otherwise the tool and what
 * it is connected to are compiled in memory, without type-checking handlers (a picture does not
 * depend on them).
 */
import { readFileSync } from 'node:fs';
import { hasErrors } from '../compiler/diagnostics/diagnostic.js';
import { outputsMatch } from '../compiler/cache/build-cache.js';
import type { CompilerOptions } from '../compiler/options.js';
import { openCache } from './cache.js';
import { EXIT, projectSettings, UsageError, type CommandOptions } from './commands.js';
import { printDiagnostics, type Output } from './output.js';

/** Prints the flowchart on stdout, ready for `mmdc` or a Markdown fence; nothing is written. */
export async function graphCommand(name: string, options: CommandOptions, output: Output): Promise<number> {
  const settings = await projectSettings(options, output);
  const written = await writtenGraph(settings, name, options.cache !== false);
  if (written !== null) {
    output.out(written);
    return EXIT.ok;
  }
  const { Compiler } = await import('../compiler/compile.js');
  const { mermaidFlowchart } = await import('../compiler/emit/mermaid.js');
  const compiler = new Compiler({ ...settings, checkHandlerTypes: false });
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
async function writtenGraph(settings: CompilerOptions, name: string, useCache: boolean): Promise<string | null> {
  const cache = await openCache(settings, useCache);
  const hit = cache?.hit;
  if (!hit?.outputs || hasErrors(hit.diagnostics) || !outputsMatch(hit, settings.outDir)) return null;
  const { deriveNames } = await import('../compiler/names.js');
  const { toolPaths } = await import('../compiler/layout.js');
  const file = toolPaths(settings.outDir, deriveNames(name).fileSlug).graph;
  if (!Object.hasOwn(hit.outputs, file)) return null;
  const fence = /^```mermaid\n([\s\S]*?)^```$/m.exec(readFileSync(file, 'utf8'));
  return fence ? fence[1]!.replace(/\n$/, '') : null;
}
