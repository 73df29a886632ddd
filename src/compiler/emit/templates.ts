/**
 * The handlebars templates of everything toolgen emits, compiled once from their texts (the load
 * stage reads them). `noEscape` because the output is TypeScript, not HTML; `strict` so that a view
 * missing a field is a bug we see, not an empty string in generated code.
 */
import Handlebars from 'handlebars';
import { GENERATED_MARKER } from './banner.js';

export const TEMPLATE_NAMES = [
  'function-tool',
  'composite-tool',
  'tool-test',
  'index',
  'remote-server',
  'mcp-servers',
  'api-operations',
  'apis',
  'adapter-ai-sdk',
  'adapter-langchain',
  'adapter-openai-agents',
  'adapter-mastra',
] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

/** A template's text, and the file it came from (for messages). */
export interface TemplateSource {
  readonly file: string;
  readonly text: string;
}

/** The banner partial and every template. */
export type TemplateSources = Readonly<Record<'banner' | TemplateName, TemplateSource>>;

/** A template that does not load or does not render: where in the `.hbs` file, and why. The user's to fix. */
export class TemplateProblem extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(`template ${file}:${line}:${column} ${reason}`);
  }
}

/** Where handlebars says an error is: a parse error's `hash.loc` (lines from 1, columns from 0), or a render error's `lineNumber` and `column`. */
function problemOf(file: string, error: unknown, doing: string): TemplateProblem {
  const found = error as {
    hash?: { loc?: { first_line?: number; first_column?: number } };
    lineNumber?: number;
    column?: number;
    message?: string;
  };
  const lines = (found.message ?? String(error)).split('\n');
  // A parse error at the end of the file has no loc, only "Parse error on line N:" and, last, what was expected.
  const onLine = /^Parse error on line (\d+):$/.exec(lines[0]!);
  const line = found.hash?.loc?.first_line ?? found.lineNumber ?? (onLine ? Number(onLine[1]) : 1);
  const column = (found.hash?.loc?.first_column ?? found.column ?? 0) + 1;
  const reason = onLine ? lines.at(-1)! : lines[0]!.replace(/ - \d+:\d+$/, '');
  return new TemplateProblem(file, line, column, `${doing}: ${reason}`);
}

export class TemplateSet {
  readonly #files: ReadonlyMap<TemplateName, string>;
  readonly #compiled: Map<TemplateName, Handlebars.TemplateDelegate>;

  /**
   * Parses every template; throws a `TemplateProblem` naming the file and place when one does not
   * parse, or when the files it renders would not start with the banner (toolgen could not tell them from yours).
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
        throw problemOf(file, error, 'does not parse');
      }
    };
    handlebars.registerPartial('banner', parse(sources.banner));
    const banner = handlebars.compile(sources.banner.text, { noEscape: true })({ source: 'config/tools/x.yaml' });
    if (!banner.startsWith(GENERATED_MARKER)) {
      throw new TemplateProblem(
        sources.banner.file,
        1,
        1,
        `must start with '${GENERATED_MARKER}': that is how toolgen recognises the files it may replace and delete`,
      );
    }
    for (const name of TEMPLATE_NAMES) {
      const { file, text } = sources[name];
      if (!/^\{\{~?>\s*banner\b/.test(text) && !text.startsWith(GENERATED_MARKER)) {
        throw new TemplateProblem(
          file,
          1,
          1,
          'must start with {{> banner}}: that is how toolgen recognises the files it may replace and delete',
        );
      }
    }
    this.#files = new Map(TEMPLATE_NAMES.map((name) => [name, sources[name].file]));
    this.#compiled = new Map(
      TEMPLATE_NAMES.map((name) => [name, handlebars.compile(parse(sources[name]), { noEscape: true, strict: true })]),
    );
  }

  /** Renders a template; throws a `TemplateProblem` when it asks for something the view does not have. */
  render(name: TemplateName, view: object): string {
    try {
      return this.#compiled.get(name)!(view);
    } catch (error) {
      throw problemOf(this.#files.get(name)!, error, 'does not render');
    }
  }
}

/** Sets made lately, by their sources: every compiler, and every build of a watch, reads the same few. */
const recent = new Map<string, TemplateSet>();
const RECENT_SETS = 4;

/**
 * The set of these sources: the one made before from the same files and texts, or a new one (which
 * throws as `new TemplateSet` does). Compiling the templates costs a small build more than parsing its YAML.
 *
 * @example templateSetOf(readTemplates(dir)) === templateSetOf(readTemplates(dir)) // true, until a text changes
 */
export function templateSetOf(sources: TemplateSources): TemplateSet {
  const key = JSON.stringify(Object.entries(sources).map(([name, { file, text }]) => [name, file, text]));
  const set = recent.get(key) ?? new TemplateSet(sources);
  recent.delete(key);
  recent.set(key, set);
  for (const oldest of recent.keys()) {
    if (recent.size <= RECENT_SETS) break;
    recent.delete(oldest);
  }
  return set;
}
