/**
 * Turns a catalogue template and its arguments into text. The argument types come from the templates
 * themselves, so a call site that forgets or misspells a placeholder does not compile.
 */
import { CATALOGUE, type DiagnosticId } from './catalogue.js';
import { printable } from './printable.js';

/** The placeholder names in a template: `Placeholders<"no tool named '{name}'">` is `'name'`. */
export type Placeholders<S extends string> = S extends `${string}{${infer P}}${infer R}` ? P | Placeholders<R> : never;

type Entry<Id extends DiagnosticId> = (typeof CATALOGUE)[Id];
type HintOf<Id extends DiagnosticId> = Entry<Id> extends { readonly hint: infer H extends string } ? H : '';

type NamesOf<Id extends DiagnosticId> = Placeholders<Entry<Id>['message']> | Placeholders<HintOf<Id>>;

/**
 * The arguments a diagnostic needs: one string per placeholder of its message and its hint. An
 * entry with no placeholders takes `{}` and nothing else (a bare `{}` type would accept any object).
 */
export type DiagnosticArgs<Id extends DiagnosticId> = [NamesOf<Id>] extends [never]
  ? Readonly<Record<string, never>>
  : { readonly [P in NamesOf<Id>]: string };

const PLACEHOLDER = /\{(\w+)\}/g;

/**
 * Fills a template's placeholders from `args`. The arguments carry what users wrote (names, paths,
 * text), so their control characters are escaped: a message never drives the terminal.
 *
 * @example fillTemplate("no tool named '{name}'", { name: 'ecko' }) // "no tool named 'ecko'"
 */
export function fillTemplate(template: string, args: Readonly<Record<string, string>>): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => {
    const value = args[name];
    return value === undefined ? whole : printable(value);
  });
}

/** The placeholder names a template uses, in order; for tests and tools that read the catalogue. */
export function placeholdersOf(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((match) => match[1]!);
}
