/**
 * Every place a tool's YAML names a step, a state variable or a tool, found in the text as it is now
 * (not as it last compiled): what definitions, references and rename are made of. Step ids come from
 * the compiler's own `buildSteps`, so a step without an id is known by the id the build gives it.
 */
import { isMap, isScalar, isSeq, type Node, type Scalar } from 'yaml';
import { isPlainObject } from '../language/json.js';
import { parseTemplate } from '../language/template.js';
import { expressionReferences } from '../compiler/check/expressions.js';
import { buildSteps, stepsPath, type StepNode } from '../compiler/check/steps.js';
import type { YamlPath } from '../compiler/load/source.js';
import type { StepDoc } from '../compiler/model.js';
import { contentOffsets, nodeAt, type YamlView } from './yaml-view.js';

export type NameKind = 'step' | 'state' | 'tool';

/** One place a name is written: its kind, whether it defines the name, and its offsets in the text. */
export interface Occurrence {
  readonly kind: NameKind;
  readonly name: string;
  /** Where the name is defined (a step's `id`, a parameter, a `map_outputs` target), or used. */
  readonly role: 'definition' | 'use';
  readonly start: number;
  readonly end: number;
  /** For a step without an id: its definition is the step's first key, and the name is not in the text. */
  readonly derived?: boolean;
  /** The step the place belongs to, when it is inside one. */
  readonly step?: StepNode;
  /** How a definition of a state variable sets it. */
  readonly via?: 'parameter' | 'map_outputs' | 'transform' | 'loop';
}

/**
 * The steps of the document's composite, as the build numbers them; none when it has no steps yet.
 *
 * @example stepsOf(viewOf(text)).map((node) => node.id) // ['echo_tool', 'echo_tool_2']
 */
export function stepsOf(view: YamlView): StepNode[] {
  return once(stepsByView, view, () => {
    const steps = readPath(view.value, stepsPath());
    if (!Array.isArray(steps)) return [];
    try {
      return buildSteps(steps.map(withoutEmptyKeys) as StepDoc[], view.source).nodes;
    } catch {
      // Steps still being typed (a loop without its steps): nothing to number yet.
      return [];
    }
  });
}

/**
 * A document's steps and occurrences, worked out once per text (the server keeps one view per
 * document version), so that no request on a long document walks it again.
 */
const stepsByView = new WeakMap<YamlView, StepNode[]>();
const occurrencesByView = new WeakMap<YamlView, Occurrence[]>();

function once<T>(memo: WeakMap<YamlView, T>, view: YamlView, make: () => T): T {
  let found = memo.get(view);
  if (found === undefined) {
    found = make();
    memo.set(view, found);
  }
  return found;
}

/** A value with its keys that hold nothing yet left out (`next: ` while the id is being typed). */
function withoutEmptyKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutEmptyKeys);
  if (!isPlainObject(value)) return value;
  const kept: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value))
    if (inner !== null)
      Object.defineProperty(kept, key, {
        value: withoutEmptyKeys(inner),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  return kept;
}

/** Every step, those inside blocks included, in document order. */
export function everyStep(nodes: readonly StepNode[]): StepNode[] {
  return nodes.flatMap((node) => [
    node,
    ...everyStep(node.body ?? []),
    ...(node.branches ?? []).flatMap((branch) => everyStep(branch.nodes)),
  ]);
}

/**
 * Every occurrence of a step id, state variable or tool name in the document.
 *
 * @example occurrencesOf(view).filter((o) => o.kind === 'step' && o.name === 'search')
 */
export function occurrencesOf(view: YamlView): readonly Occurrence[] {
  return once(occurrencesByView, view, () => findOccurrences(view));
}

function findOccurrences(view: YamlView): Occurrence[] {
  const found: Occurrence[] = [];
  const add = (kind: NameKind, role: Occurrence['role'], path: YamlPath, extra: Partial<Occurrence> = {}) => {
    const node = nodeAt(view, path);
    if (!isScalar(node) || typeof node.value !== 'string' || !node.range) return;
    const name = node.value;
    if (kind === 'step' && name === 'end') return;
    const [start] = node.range;
    const offsets = contentOffsets(node, view.text);
    const from = offsets?.[0] ?? start;
    found.push({ kind, name, role, start: from, end: from + name.length, ...extra });
  };
  const addKey = (
    kind: NameKind,
    role: Occurrence['role'],
    path: YamlPath,
    step?: StepNode,
    via?: Occurrence['via'],
  ) => {
    const key = keyNode(view, path);
    if (!key?.range) return;
    const name = String(key.value);
    const offsets = contentOffsets(key, view.text);
    const from = offsets?.[0] ?? key.range[0];
    found.push({
      kind,
      name,
      role,
      start: from,
      end: from + name.length,
      ...(step ? { step } : {}),
      ...(via ? { via } : {}),
    });
  };
  const value = view.value;
  add('tool', 'definition', ['name']);
  listAt(value, ['parameters']).forEach((_, index) =>
    add('state', 'definition', ['parameters', index, 'name'], { via: 'parameter' }),
  );
  const composite = ['implementation', 'composite'];
  listAt(value, [...composite, 'output_steps']).forEach((_, index) =>
    add('step', 'use', [...composite, 'output_steps', index]),
  );
  listAt(value, [...composite, 'allow_next_tools']).forEach((_, index) =>
    add('tool', 'use', [...composite, 'allow_next_tools', index]),
  );
  for (const node of everyStep(stepsOf(view))) stepOccurrences(view, node, { add, addKey, found });
  for (const list of ['examples', 'error_scenarios'] as const) {
    listAt(value, [list]).forEach((example, index) => {
      const at = [list, index];
      for (const key of Object.keys(objectAt(example, ['input']))) addKey('state', 'use', [...at, 'input', key]);
      for (const key of Object.keys(objectAt(example, ['stubs']))) addKey('tool', 'use', [...at, 'stubs', key]);
      // A composite's expected output is its final state.
      if (list === 'examples' && readPath(value, ['implementation', 'type']) === 'composite')
        for (const key of Object.keys(objectAt(example, ['expected_output'])))
          addKey('state', 'use', [...at, 'expected_output', key]);
      if (list === 'error_scenarios') add('step', 'use', [...at, 'expected_error', 'step']);
    });
  }
  return found.sort((a, b) => a.start - b.start);
}

interface Collect {
  add(kind: NameKind, role: Occurrence['role'], path: YamlPath, extra?: Partial<Occurrence>): void;
  addKey(kind: NameKind, role: Occurrence['role'], path: YamlPath, step?: StepNode, via?: Occurrence['via']): void;
  readonly found: Occurrence[];
}

function stepOccurrences(view: YamlView, node: StepNode, { add, addKey, found }: Collect): void {
  const at = node.path;
  const step = { step: node };
  if (node.explicitId) add('step', 'definition', [...at, 'id'], step);
  else {
    const head = keyNode(view, [...at, headKey(node.doc)]);
    if (head?.range)
      found.push({
        kind: 'step',
        name: node.id,
        role: 'definition',
        start: head.range[0],
        end: head.range[1],
        derived: true,
        step: node,
      });
  }
  const doc: unknown = node.doc;
  for (const key of ['on_success', 'on_failure'] as const) add('step', 'use', [...at, key, 'next'], step);
  add('step', 'use', [...at, 'default'], step);
  listAt(doc, ['depends_on']).forEach((_, index) => add('step', 'use', [...at, 'depends_on', index], step));
  add('tool', 'use', [...at, 'tool'], step);
  listAt(doc, ['fallbacks']).forEach((_, index) => add('tool', 'use', [...at, 'fallbacks', index], step));
  for (const from of Object.keys(objectAt(doc, ['on_success', 'map_outputs'])))
    add('state', 'definition', [...at, 'on_success', 'map_outputs', from], { ...step, via: 'map_outputs' });
  for (const to of Object.keys(objectAt(doc, ['on_success', 'transform']))) {
    addKey('state', 'definition', [...at, 'on_success', 'transform', to], node, 'transform');
    expressionAt(view, [...at, 'on_success', 'transform', to], node, found);
  }
  add('state', 'definition', [...at, 'loop', 'as'], { ...step, via: 'loop' });
  templatesUnder(view, [...at, 'loop', 'over'], node, found);
  templatesUnder(view, [...at, 'inputs'], node, found);
  expressionAt(view, [...at, 'when'], node, found);
  const conditions: unknown = readPath(doc, ['success_when']);
  if (typeof conditions === 'string') expressionAt(view, [...at, 'success_when'], node, found);
  else
    listAt(doc, ['success_when']).forEach((_, index) =>
      expressionAt(view, [...at, 'success_when', index], node, found),
    );
  listAt(doc, ['choose']).forEach((_, index) => {
    expressionAt(view, [...at, 'choose', index, 'when'], node, found);
    add('step', 'use', [...at, 'choose', index, 'next'], step);
  });
}

/** The key a step is known by when it has no id. */
function headKey(doc: StepDoc): string {
  for (const key of ['tool', 'parallel', 'loop', 'choose', 'wait']) if (key in doc) return key;
  return 'tool';
}

/** The `<< … >>` references in every string under a path: state variables and step ids. */
function templatesUnder(view: YamlView, path: YamlPath, step: StepNode, found: Occurrence[]): void {
  const visit = (node: Node | null) => {
    if (!node) return;
    if (isMap(node))
      for (const pair of node.items) {
        visit(pair.value as Node | null);
      }
    else if (isSeq(node)) (node.items as (Node | null)[]).forEach(visit);
    else if (isScalar(node) && typeof node.value === 'string' && node.value.includes('<<'))
      templateNames(view, node, step, found);
  };
  visit(nodeAt(view, path));
}

function templateNames(view: YamlView, scalar: Scalar, step: StepNode, found: Occurrence[]): void {
  const text = scalar.value as string;
  const parsed = parseTemplate(text);
  if ('error' in parsed) return;
  const offsets = contentOffsets(scalar, view.text);
  if (!offsets) return;
  for (const part of parsed.parts) {
    if (!('reference' in part)) continue;
    const { reference } = part;
    if (reference.root === 'builtin') continue;
    const inner = text.indexOf(reference.text, part.offset + 2);
    const name = reference.root === 'state' ? reference.name : reference.step;
    const rooted = reference.root === 'steps' || /^state\s*[.[]/.test(reference.text);
    const within = reference.text.indexOf(name, rooted ? 'state'.length : 0);
    if (inner < 0 || within < 0) continue;
    const start = offsets[inner + within];
    if (start === undefined) continue;
    const kind = reference.root === 'state' ? 'state' : 'step';
    found.push({ kind, name, role: 'use', start, end: start + name.length, step });
  }
}

/** The names a JSONata expression reads: `state.x`, and the step ids of `steps.x` and `responses.x`. */
function expressionAt(view: YamlView, path: YamlPath, step: StepNode, found: Occurrence[]): void {
  const node = nodeAt(view, path);
  if (!isScalar(node) || typeof node.value !== 'string') return;
  const offsets = contentOffsets(node, view.text);
  if (!offsets) return;
  for (const reference of expressionReferences(node.value)) {
    if (reference.root === 'bare') continue;
    const start = offsets[reference.offset];
    if (start === undefined) continue;
    const kind = reference.root === 'state' ? 'state' : 'step';
    found.push({ kind, name: reference.name, role: 'use', start, end: start + reference.length, step });
  }
}

/** The key node of the last segment of a path. */
export function keyNode(view: YamlView, path: YamlPath): Scalar | null {
  const parent = nodeAt(view, path.slice(0, -1));
  const last = path[path.length - 1];
  if (!isMap(parent)) return null;
  for (const pair of parent.items) if (isScalar(pair.key) && String(pair.key.value) === String(last)) return pair.key;
  return null;
}

/** The plain value at a path of a plain value. */
export function readPath(value: unknown, path: YamlPath): unknown {
  let current = value;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === 'number') current = current[segment];
    else if (isPlainObject(current) && Object.hasOwn(current, segment)) current = current[segment];
    else return undefined;
  }
  return current;
}

function listAt(value: unknown, path: YamlPath): unknown[] {
  const found = readPath(value, path);
  return Array.isArray(found) ? found : [];
}

function objectAt(value: unknown, path: YamlPath): Record<string, unknown> {
  const found = readPath(value, path);
  return isPlainObject(found) ? found : {};
}
