/**
 * Stage 5 for the adapters: for each agent framework `adapters` names, the tools its module offers a
 * model, the index's own (the same tools the index lists, so the two never disagree), and what the
 * model calls each one. OpenAI and Anthropic refuse a tool name outside `^[a-zA-Z0-9_-]{1,64}$`, so a
 * tool whose name is not one (every `<server>/<tool>`) goes by its file slug (`everything_get_sum`),
 * and names made that way never collide: a clash gets a number, in the index's order.
 */
import { adapterPath } from '../layout.js';
import type { AdapterName } from '../options.js';
import type { AdaptedTool, IndexedTool, LoweredAdapter, LoweredIndex } from './unit.js';

const MODEL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_LENGTH = 64;

/**
 * One unit per framework, in the order `adapters` lists them.
 *
 * @example lowerAdapters(index, { frameworks: ['ai-sdk'], outDir: '/p/generated' })[0]?.path // '/p/generated/adapters/ai-sdk.ts'
 */
export function lowerAdapters(
  index: LoweredIndex,
  ctx: { readonly frameworks: readonly AdapterName[]; readonly outDir: string },
): LoweredAdapter[] {
  if (ctx.frameworks.length === 0) return [];
  const tools = modelNames([
    ...index.tools,
    ...(index.remote ?? []).flatMap((server) => server.tools),
    ...(index.apis ?? []).flatMap((api) => api.tools),
  ]);
  return ctx.frameworks.map((framework) => ({
    framework,
    path: adapterPath(ctx.outDir, framework),
    source: index.source,
    tools,
  }));
}

/**
 * What the model calls each tool: its own name when a model takes it, else its file slug; a name taken
 * already (or cut to 64 characters into one) gets `_2`, `_3`, ….
 *
 * @example modelNames([{ name: 'files/read', names: deriveNames('files_read') }])[0]?.modelName // 'files_read'
 */
export function modelNames(tools: readonly IndexedTool[]): AdaptedTool[] {
  const taken = new Set<string>();
  // Names kept as they are go first, so that a made name never takes one a tool has of its own.
  for (const tool of tools) if (MODEL_NAME.test(tool.name)) taken.add(tool.name);
  return tools.map((tool) => {
    if (MODEL_NAME.test(tool.name)) return { name: tool.name, names: tool.names, modelName: tool.name };
    const base = tool.names.fileSlug.slice(0, MAX_LENGTH);
    let modelName = base;
    for (let n = 2; taken.has(modelName); n += 1) modelName = `${base.slice(0, MAX_LENGTH - `_${n}`.length)}_${n}`;
    taken.add(modelName);
    return { name: tool.name, names: tool.names, modelName };
  });
}
