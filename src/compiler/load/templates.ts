/**
 * Reads the template texts from a templates directory; emit compiles them. Reading them here keeps
 * the disk out of emit. The templates of the MCP servers' and the APIs' modules and of the adapters came later than
 * many a copy of `templates/`: a templates dir without them uses toolgen's own.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../options.js';

/** The file of each template in a templates directory. */
export const TEMPLATE_FILES = {
  banner: 'banner.hbs',
  'function-tool': 'function-tool.ts.hbs',
  'composite-tool': 'composite-tool.ts.hbs',
  'tool-test': 'tool.test.ts.hbs',
  index: 'index.ts.hbs',
  'remote-server': 'remote-server.ts.hbs',
  'mcp-servers': 'mcp-servers.ts.hbs',
  'api-operations': 'api-operations.ts.hbs',
  apis: 'apis.ts.hbs',
  'adapter-ai-sdk': 'adapters/ai-sdk.ts.hbs',
  'adapter-langchain': 'adapters/langchain.ts.hbs',
  'adapter-openai-agents': 'adapters/openai-agents.ts.hbs',
  'adapter-mastra': 'adapters/mastra.ts.hbs',
} as const;

/** Templates a templates dir of one's own may lack: toolgen's are used then. */
const OPTIONAL: ReadonlySet<string> = new Set([
  TEMPLATE_FILES['remote-server'],
  TEMPLATE_FILES['mcp-servers'],
  TEMPLATE_FILES['api-operations'],
  TEMPLATE_FILES.apis,
  TEMPLATE_FILES['adapter-ai-sdk'],
  TEMPLATE_FILES['adapter-langchain'],
  TEMPLATE_FILES['adapter-openai-agents'],
  TEMPLATE_FILES['adapter-mastra'],
]);

export type TemplateTexts = {
  readonly [K in keyof typeof TEMPLATE_FILES]: { readonly file: string; readonly text: string };
};

/**
 * Every template's text; throws an Error naming the file when one cannot be read.
 *
 * @example readTemplates('/p/templates').banner.file // '/p/templates/banner.hbs'
 */
export function readTemplates(dir: string): TemplateTexts {
  const read = (name: string) => {
    const own = path.join(dir, name);
    const file = OPTIONAL.has(name) && !existsSync(own) ? path.join(PACKAGE_ROOT, 'templates', name) : own;
    try {
      return { file, text: readFileSync(file, 'utf8') };
    } catch (error) {
      throw new Error(
        `template ${file} does not load: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
        { cause: error },
      );
    }
  };
  return Object.fromEntries(
    Object.entries(TEMPLATE_FILES).map(([key, name]) => [key, read(name)]),
  ) as unknown as TemplateTexts;
}
