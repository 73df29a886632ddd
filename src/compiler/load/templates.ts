/**
 * Reads the template texts from a templates directory; emit compiles them. Reading them here keeps
 * the disk out of emit.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The file of each template in a templates directory. */
export const TEMPLATE_FILES = {
  banner: 'banner.hbs',
  'function-tool': 'function-tool.ts.hbs',
  'composite-tool': 'composite-tool.ts.hbs',
  'tool-test': 'tool.test.ts.hbs',
  index: 'index.ts.hbs',
} as const;

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
    const file = path.join(dir, name);
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
