/**
 * Stage 6 for the adapters: one module per agent framework (`templates/adapters/<framework>.ts.hbs`),
 * a function that takes what a request has (an executor, or the options of one) and returns every
 * tool as that framework's tool. The module reads each tool's description and JSON Schema from its
 * definition and runs its generated function, both through the index (`import * as generated`), so
 * that no tool's name can clash with what the module imports, and the types follow the modules on disk.
 */
import type { LoweredAdapter } from '../lower/unit.js';
import type { OutputFile } from './emit.js';
import { commentText, propertyKey, quote } from '../../language/print.js';
import { RUNTIME_MODULE } from './runtime-module.js';
import type { TemplateSet } from './templates.js';
import { tidy } from './tidy.js';

/**
 * A framework's module.
 *
 * @example emitAdapter(adapter, templates).path // '/p/generated/adapters/ai-sdk.ts'
 */
export function emitAdapter(adapter: LoweredAdapter, templates: TemplateSet): OutputFile {
  const view = {
    source: commentText(adapter.source),
    runtimeModule: quote(RUNTIME_MODULE),
    tools: adapter.tools.map((tool) => ({
      key: propertyKey(tool.modelName),
      nameLiteral: quote(tool.modelName),
      definitionName: `${tool.names.functionName}Definition`,
      functionName: tool.names.functionName,
    })),
  };
  return { path: adapter.path, content: tidy(templates.render(`adapter-${adapter.framework}`, view)) };
}
