/**
 * The handlebars templates of everything toolgen emits, loaded from a templates directory and
 * compiled once. `noEscape` because the output is TypeScript, not HTML; `strict` so that a view
 * missing a field is a bug we see, not an empty string in generated code.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Handlebars from 'handlebars';

export const TEMPLATE_NAMES = ['function-tool', 'composite-tool', 'tool-test', 'index'] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

const FILES: Record<TemplateName, string> = {
  'function-tool': 'function-tool.ts.hbs',
  'composite-tool': 'composite-tool.ts.hbs',
  'tool-test': 'tool.test.ts.hbs',
  index: 'index.ts.hbs',
};

export class TemplateSet {
  readonly #compiled: Map<TemplateName, Handlebars.TemplateDelegate>;

  /** Loads and parses every template; throws an Error naming the file when one does not load. */
  constructor(readonly dir: string) {
    const handlebars = Handlebars.create();
    const load = (file: string): string => {
      const full = path.join(dir, file);
      try {
        const source = readFileSync(full, 'utf8');
        handlebars.parse(source); // compile() is lazy: parse now, so a broken template is reported here
        return source;
      } catch (error) {
        throw new Error(`template ${full} does not load: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
      }
    };
    handlebars.registerPartial('banner', load('banner.hbs'));
    this.#compiled = new Map(TEMPLATE_NAMES.map((name) => [name, handlebars.compile(load(FILES[name]), { noEscape: true, strict: true })]));
  }

  render(name: TemplateName, view: object): string {
    return this.#compiled.get(name)!(view);
  }
}
