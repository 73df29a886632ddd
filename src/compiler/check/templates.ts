/**
 * Finds every `<< … >>` template in a step's inputs, wherever it sits, with the YAML path and the
 * offset inside the string so a problem can be pointed at exactly.
 */
import type { JsonValue } from '../../language/json.js';
import { parseTemplate, type Reference } from '../../language/template.js';
import type { YamlPath } from '../load/source.js';

export interface FoundReference {
  readonly reference: Reference;
  readonly path: YamlPath;
  readonly offset: number;
  /** Length of the template text, `<< … >>` included. */
  readonly length: number;
  /** The string is exactly this template: the value keeps its type. */
  readonly whole: boolean;
}

export interface TemplateProblem {
  readonly path: YamlPath;
  readonly offset: number;
  readonly message: string;
}

export interface SeedTemplate {
  readonly path: YamlPath;
  readonly offset: number;
  readonly text: string;
  readonly replacement: string;
}

export interface ScanResult {
  readonly references: FoundReference[];
  readonly problems: TemplateProblem[];
  readonly seedTemplates: SeedTemplate[];
}

const SEED_TEMPLATE = /\{\{\s*([^{}]*?)\s*\}\}/g;

export function scanTemplates(
  value: JsonValue,
  path: YamlPath,
  into: ScanResult = { references: [], problems: [], seedTemplates: [] },
): ScanResult {
  if (typeof value === 'string') {
    for (const match of value.matchAll(SEED_TEMPLATE)) {
      into.seedTemplates.push({ path, offset: match.index, text: match[0], replacement: `<< ${match[1]} >>` });
    }
    if (!value.includes('<<')) return into;
    const parsed = parseTemplate(value);
    if ('error' in parsed) {
      into.problems.push({ path, offset: parsed.error.offset, message: parsed.error.message });
      return into;
    }
    for (const part of parsed.parts) {
      if ('reference' in part) {
        const close = value.indexOf('>>', part.offset);
        into.references.push({
          reference: part.reference,
          path,
          offset: part.offset,
          length: close + 2 - part.offset,
          whole: parsed.whole,
        });
      }
    }
    return into;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => scanTemplates(item, [...path, index], into));
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) scanTemplates(item, [...path, key], into);
  }
  return into;
}

/** Whether a value holds no templates anywhere: a literal the compiler can check in full. */
export function isLiteral(value: JsonValue): boolean {
  if (typeof value === 'string') return !value.includes('<<');
  if (Array.isArray(value)) return value.every(isLiteral);
  if (typeof value === 'object' && value !== null) return Object.values(value).every(isLiteral);
  return true;
}
