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

  constructor(readonly dir: string) {
    const handlebars = Handlebars.create();
    handlebars.registerPartial('banner', readFileSync(path.join(dir, 'banner.hbs'), 'utf8'));
    this.#compiled = new Map(
      TEMPLATE_NAMES.map((name) => [name, handlebars.compile(readFileSync(path.join(dir, FILES[name]), 'utf8'), { noEscape: true, strict: true })]),
    );
  }

  render(name: TemplateName, view: object): string {
    return this.#compiled.get(name)!(view);
  }
}
