/**
 * Completion, by where the cursor is: tool names after `tool:` (and in `fallbacks`, `allow_next_tools`,
 * stubs), step ids where a step id goes, the called tool's parameters as keys of `inputs`, and inside
 * `<< … >>` and JSONata the state variables defined on the paths to the step, step ids after `steps.`
 * (and API steps after an expression's `responses.`), and the fields of a value of known shape after a dot.
 */
import { CompletionItemKind, type CompletionItem, type Range } from 'vscode-languageserver';
import { isMap } from 'yaml';
import { BUILTINS } from '../language/template.js';
import { isPlainObject, type JsonSchema } from '../language/json.js';
import { schemaAt } from '../compiler/check/schema-path.js';
import type { CompositeScopes, StepScope } from '../compiler/check/scopes.js';
import type { YamlPath } from '../compiler/load/source.js';
import { mustPass } from '../compiler/resolve/parameters.js';
import {
  descriptionOf,
  requiredFirst,
  parameterType,
  signatureMarkdown,
  toolNamed,
  typeText,
  type Tool,
} from './describe.js';
import { everyStep, readPath, stepsOf } from './occurrences.js';
import type { ProjectState } from './project.js';
import { scopesOf, stepScopeAt } from './scope.js';
import { cursorAt, nodeAt, type Cursor, type YamlView } from './yaml-view.js';

/** A document at a cursor, with what its project knows. */
export interface DocumentAt {
  readonly view: YamlView;
  readonly offset: number;
  /** The document's file (absolute). */
  readonly file: string;
  readonly state: ProjectState | null;
}

const TOOL_LISTS = new Set(['fallbacks', 'allow_next_tools']);
const STEP_LISTS = new Set(['depends_on', 'output_steps']);

/**
 * What may go at the cursor.
 *
 * @example completionsAt({ view, offset, file, state }).map((item) => item.label) // ['echo_tool', …]
 */
export function completionsAt(at: DocumentAt): CompletionItem[] {
  const cursor = cursorAt(at.view, at.offset);
  if (!cursor) return [];
  const path = cursor.path;
  const last = path[path.length - 1];
  const parent = path[path.length - 2];
  if (cursor.on === 'key') {
    if (parent === 'inputs') return parameterItems(at, path.slice(0, -2), String(last));
    if (parent === 'stubs') return toolItems(at);
    return [];
  }
  const inString = typeof cursor.scalar?.value === 'string' || cursor.scalar === null;
  const template = inString ? templateBeforeCursor(at) : null;
  if (template !== null) return referenceItems(at, cursor, template, { expression: false });
  if (isExpression(path)) return referenceItems(at, cursor, expressionBeforeCursor(at), { expression: true });
  if ((last === 'tool' && isStepPath(path.slice(0, -1))) || (typeof parent === 'string' && TOOL_LISTS.has(parent)))
    return toolItems(at);
  if (isTransition(path)) return stepItems(at, path, { end: true });
  if ((typeof parent === 'string' && STEP_LISTS.has(parent)) || (last === 'step' && parent === 'expected_error'))
    return stepItems(at, path, { end: false });
  return [];
}

function isStepPath(path: YamlPath): boolean {
  const parent = path[path.length - 2];
  return typeof path[path.length - 1] === 'number' && (parent === 'steps' || parent === 'parallel');
}

/** Where a step id (or `end`) goes: `on_success.next`, `on_failure.next`, a choice's `next` and its `default`. */
function isTransition(path: YamlPath): boolean {
  const [last, parent] = [path[path.length - 1], path[path.length - 2]];
  if (last === 'default') return isStepPath(path.slice(0, -1));
  return last === 'next' && (parent === 'on_success' || parent === 'on_failure' || path[path.length - 3] === 'choose');
}

/** `when`, a choice's `when`, a transform's expression, a `success_when` (or one of its list): JSONata. */
function isExpression(path: YamlPath): boolean {
  const [last, parent] = [path[path.length - 1], path[path.length - 2]];
  return last === 'when' || last === 'success_when' || parent === 'transform' || parent === 'success_when';
}

/**
 * The tools that may go at the cursor. What is typed (`memory/sea`) is replaced whole by the item, and
 * once a `server/` is typed only that server's tools are offered: editors filter labels holding `/`
 * each their own way, so the server decides what matches the server part.
 */
function toolItems(at: DocumentAt): CompletionItem[] {
  if (!at.state) return [];
  const own = at.state.entries.get(at.file)?.name;
  const word = wordAt(at, TOOL_NAME);
  const slash = word.typed.indexOf('/');
  const server = slash < 0 ? null : word.typed.slice(0, slash + 1);
  const tools: Tool[] = server
    ? at.state.catalogue.remoteEntries().filter((tool) => tool.name.startsWith(server))
    : [...at.state.catalogue.entries(), ...at.state.catalogue.remoteEntries()];
  return tools
    .filter((tool) => tool.name !== own)
    .map((tool) => ({
      label: tool.name,
      kind: CompletionItemKind.Function,
      detail: descriptionOf(tool),
      documentation: { kind: 'markdown', value: signatureMarkdown(tool) },
      filterText: tool.name,
      textEdit: { range: word.range, newText: tool.name },
    }));
}

/** The characters of a tool's name (`server/tool` included) and of a step id. */
const TOOL_NAME = /[A-Za-z0-9_./-]/;
const STEP_ID = /[A-Za-z0-9_-]/;

/** The word the cursor is in (what an item replaces), and its part before the cursor. */
function wordAt(at: DocumentAt, chars: RegExp): { typed: string; range: Range } {
  const { text } = at.view;
  let start = at.offset;
  while (start > 0 && chars.test(text[start - 1]!)) start -= 1;
  let end = at.offset;
  while (end < text.length && chars.test(text[end]!)) end += 1;
  return { typed: text.slice(start, at.offset), range: { start: positionOf(at, start), end: positionOf(at, end) } };
}

/** An offset as a protocol position (lines and UTF-16 characters from 0). */
function positionOf(at: DocumentAt, offset: number): { line: number; character: number } {
  const { line, col } = at.view.lineCounter.linePos(offset);
  return { line: line - 1, character: col - 1 };
}

function stepItems(at: DocumentAt, path: YamlPath, { end }: { end: boolean }): CompletionItem[] {
  const nodes = stepsOf(at.view);
  const dependsOn = path[path.length - 2] === 'depends_on';
  // A DAG step depends on other top-level steps; `next` goes to any step, blocks' included.
  const own = JSON.stringify(path.slice(0, -2));
  const candidates = dependsOn ? nodes.filter((node) => JSON.stringify(node.path) !== own) : everyStep(nodes);
  const { range } = wordAt(at, STEP_ID);
  const items: CompletionItem[] = candidates.map((node) => ({
    label: node.id,
    kind: CompletionItemKind.Reference,
    detail: 'tool' in node.doc ? `step calling ${node.doc.tool}` : 'step',
    filterText: node.id,
    textEdit: { range, newText: node.id },
  }));
  if (end)
    items.push({
      label: 'end',
      kind: CompletionItemKind.Keyword,
      detail: 'end the chain here',
      filterText: 'end',
      textEdit: { range, newText: 'end' },
    });
  return items;
}

/** The called tool's parameters, required first, those already given left out. */
function parameterItems(at: DocumentAt, stepPath: YamlPath, typing: string): CompletionItem[] {
  const tool = readPath(at.view.value, [...stepPath, 'tool']);
  const signature = typeof tool === 'string' && at.state ? toolNamed(at.state.catalogue, tool) : undefined;
  if (!signature) return [];
  const inputs = nodeAt(at.view, [...stepPath, 'inputs']);
  const given = new Set(
    isMap(inputs) ? inputs.items.map((pair) => String((pair.key as { value?: unknown })?.value)) : [],
  );
  const ordered = requiredFirst(signature.parameters);
  return ordered
    .filter((parameter) => !given.has(parameter.name) || parameter.name === typing)
    .map((parameter, index) => ({
      label: parameter.name,
      kind: CompletionItemKind.Field,
      detail: `${parameterType(parameter)}${mustPass(parameter) ? ' (required)' : ''}`,
      ...(parameter.description ? { documentation: parameter.description } : {}),
      sortText: String(index).padStart(4, '0'),
      insertText: `${parameter.name}: `,
    }));
}

/** The text of an unclosed `<< …` before the cursor on its line, or null when the cursor is in no template. */
function templateBeforeCursor(at: DocumentAt): string | null {
  const before = lineBefore(at);
  const open = before.lastIndexOf('<<');
  if (open < 0 || before.indexOf('>>', open) >= 0) return null;
  return before.slice(open + 2).trimStart();
}

/** The path being typed at the end of an expression: `state.items.`, `steps.x`, or nothing. */
function expressionBeforeCursor(at: DocumentAt): string {
  return /[A-Za-z0-9_.[\]$]*$/.exec(lineBefore(at))?.[0] ?? '';
}

function lineBefore(at: DocumentAt): string {
  const start = at.view.text.lastIndexOf('\n', at.offset - 1) + 1;
  return at.view.text.slice(start, at.offset);
}

/** Names, step ids or fields, for a reference typed as far as `typed`. */
function referenceItems(
  at: DocumentAt,
  cursor: Cursor,
  typed: string,
  { expression }: { expression: boolean },
): CompletionItem[] {
  const segments = typed.split('.').map((segment) => segment.replace(/\[\d+\]/g, ''));
  segments.pop();
  const entry = at.state?.entries.get(at.file);
  const scopes = entry && at.state ? scopesOf(at.state, entry) : null;
  if (!scopes) return [];
  const scope = stepScopeAt(scopes, cursor.path);
  // A transform runs once the step's outputs are mapped; its success_when before, on its output alone.
  const judged = cursor.path.includes('success_when');
  const afterStep =
    scope && (judged || cursor.path.includes('transform')) ? ownDefinitions(scope, judged) : new Set<string>();
  const defined = (name: string) => (afterStep.has(name) ? 'always' : (scope?.defined(name) ?? 'always'));
  if (segments.length === 0) {
    const roots: CompletionItem[] = ['state', 'steps'].map((label) => ({ label, kind: CompletionItemKind.Module }));
    if (expression) return [...roots, { label: 'responses', kind: CompletionItemKind.Module }];
    const builtins = BUILTINS.map((label) => ({ label, kind: CompletionItemKind.Constant, detail: 'built-in' }));
    return [...variableItems(scopes, defined), ...roots, ...builtins];
  }
  const [head, ...rest] = segments;
  if (head === 'state' && rest.length === 0) return variableItems(scopes, defined);
  if (head === 'steps' && rest.length === 0) {
    return [...scopes.stepIds.values()]
      .filter((node) => scopes.dag || defined(`steps.${node.id}`) !== 'never')
      .filter((node) => !scope || node !== scope.node)
      .map((node) => ({
        label: node.id,
        kind: CompletionItemKind.Reference,
        detail: typeText(scopes.outputOf(node)),
      }));
  }
  if (head === 'steps') {
    const node = scopes.stepIds.get(rest[0]!);
    return node ? fieldItems(scopes.outputOf(node), rest.slice(1)) : [];
  }
  if (head === 'responses' && expression) return responseItems(at, scopes, rest);
  const [name, ...fields] = head === 'state' ? rest : segments;
  if (expression && head !== 'state') return [];
  return fieldItems(scopes.variables.get(name!) ?? null, fields);
}

/** What a step defines for its own `transform`: its mapped outputs and its own output (for its `success_when`, its output alone). */
function ownDefinitions(scope: StepScope, judged: boolean): Set<string> {
  const own = `steps.${scope.node.id}`;
  if (judged) return new Set([own]);
  const success = scope.node.doc.on_success;
  return new Set([...Object.values(success?.map_outputs ?? {}), own]);
}

/** After `responses.`: the steps that call an API operation; after `responses.<id>.`: `status` and `headers`. */
function responseItems(at: DocumentAt, scopes: CompositeScopes, rest: readonly string[]): CompletionItem[] {
  const catalogue = at.state?.catalogue;
  if (!catalogue) return [];
  if (rest.length === 0)
    return [...scopes.stepIds.values()]
      .filter((node) => 'tool' in node.doc && catalogue.remote(node.doc.tool)?.via === 'api')
      .map((node) => ({
        label: node.id,
        kind: CompletionItemKind.Reference,
        detail: `the response of ${(node.doc as { tool: string }).tool}: { status, headers }`,
      }));
  if (rest.length > 1) return [];
  return [
    { label: 'status', kind: CompletionItemKind.Field, detail: 'integer' },
    { label: 'headers', kind: CompletionItemKind.Field, detail: 'object: text by lower-case name' },
  ];
}

function variableItems(
  scopes: CompositeScopes,
  defined: (name: string) => 'always' | 'sometimes' | 'never',
): CompletionItem[] {
  return [...scopes.variables]
    .filter(([name]) => defined(name) !== 'never')
    .map(([name, schema]) => {
      const always = defined(name) === 'always';
      return {
        label: name,
        kind: CompletionItemKind.Variable,
        detail: `${typeText(schema)}${always ? '' : ' (set on some paths only)'}`,
        sortText: `${always ? 0 : 1}${name}`,
      };
    });
}

/** The fields of the value at `path` in a schema; through a list, the fields of its items (JSONata maps over them). */
function fieldItems(schema: JsonSchema | null, path: readonly string[]): CompletionItem[] {
  let current: JsonSchema | null = schema;
  for (const segment of path) {
    current = itemsOf(current);
    const found = schemaAt(current, [segment]);
    current = found.kind === 'found' ? found.schema : null;
  }
  current = itemsOf(current);
  const properties = current?.['properties'];
  if (!isPlainObject(properties)) return [];
  return Object.entries(properties as Record<string, JsonSchema>).map(([name, field]) => ({
    label: name,
    kind: CompletionItemKind.Field,
    detail: typeText(field),
    ...(typeof field['description'] === 'string' ? { documentation: field['description'] } : {}),
  }));
}

function itemsOf(schema: JsonSchema | null): JsonSchema | null {
  while (schema && schema['type'] === 'array' && isPlainObject(schema['items'])) schema = schema['items'] as JsonSchema;
  return schema;
}
