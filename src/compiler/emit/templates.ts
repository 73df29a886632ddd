/**
 * The handlebars templates of everything toolgen emits, compiled once from their texts (the load
 * stage reads them). `noEscape` because the output is TypeScript, not HTML; `strict` so that a view
 * missing a field is a bug we see, not an empty string in generated code.
 */
import Handlebars from 'handlebars';
import { GENERATED_MARKER } from './banner.js';

export const TEMPLATE_NAMES = ['function-tool', 'composite-tool', 'tool-test', 'index'] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

/** A template's text, and the file it came from (for messages). */
export interface TemplateSource {
  readonly file: string;
  readonly text: string;
}

/** The banner partial and every template. */
export type TemplateSources = Readonly<Record<'banner' | TemplateName, TemplateSource>>;

export class TemplateSet {
  readonly #compiled: Map<TemplateName, Handlebars.TemplateDelegate>;

  /**
   * Parses every template; throws an Error naming the file when one does not parse, or when the
   * files it renders would not start with the banner (toolgen could not tell them from yours).
   *
   * @example new TemplateSet(readTemplates(dir)).render('index', view)
   */
  constructor(sources: TemplateSources) {
    const handlebars = Handlebars.create();
    const parse = ({ file, text }: TemplateSource): string => {
      try {
        handlebars.parse(text); // compile() is lazy: parse now, so a broken template is reported here
        return text;
      } catch (error) {
        throw new Error(`template ${file} does not load: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
      }
    };
    handlebars.registerPartial('banner', parse(sources.banner));
    const banner = handlebars.compile(sources.banner.text, { noEscape: true })({ source: 'config/tools/x.yaml' });
    if (!banner.startsWith(GENERATED_MARKER)) {
      throw new Error(`template ${sources.banner.file} must start with '${GENERATED_MARKER}': that is how toolgen recognises the files it may replace and delete`);
    }
    for (const name of TEMPLATE_NAMES) {
      const { file, text } = sources[name];
      if (!/^\{\{~?>\s*banner\b/.test(text) && !text.startsWith(GENERATED_MARKER)) {
        throw new Error(`template ${file} must start with {{> banner}}: that is how toolgen recognises the files it may replace and delete`);
      }
    }
    this.#compiled = new Map(TEMPLATE_NAMES.map((name) => [name, handlebars.compile(parse(sources[name]), { noEscape: true, strict: true })]));
  }

  render(name: TemplateName, view: object): string {
    return this.#compiled.get(name)!(view);
  }
}
