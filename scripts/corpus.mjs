/**
 * A deterministic corpus of tool YAML for the benchmark: ten atomic function tools (one TypeScript
 * handler module) and N composite tools of 4-6 steps that call them, with `<< state.x >>` and
 * `"text << state.y >>"` templates, literals, map_outputs (nested paths included), `next` jumps and
 * every on_failure action. The same N always gives byte-identical files.
 *
 * Like real tools, composites do not share parameter schemas (descriptions and defaults differ), so
 * caches keyed by schema content do not get one hit per composite for free.
 *
 * Every composite only references state variables that are defined on every path reaching the step
 * (the generator runs the same must-defined data flow as the checker), and passes values whose types
 * match the callee's parameters, so the corpus compiles with no diagnostics at all.
 *
 * @example
 * const { files } = await writeCorpus('/tmp/x/config/tools', { composites: 1000 });
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Parameter and output shapes of the atomic tools; a tool's shape is its index modulo 3. */
const SHAPES = {
  A: {
    params: [
      {
        name: 'value',
        type: 'integer',
        required: true,
        yaml: 'type: integer\n    required: true\n    min_value: 0\n    description: A count to carry along.',
      },
      {
        name: 'label',
        type: 'string',
        required: true,
        yaml: 'type: string\n    required: true\n    min_length: 1\n    max_length: 200',
      },
      {
        name: 'mode',
        type: 'enum',
        values: ['fast', 'safe'],
        yaml: 'type: string\n    enum: [fast, safe]\n    default: fast',
      },
    ],
    outputs: { value: 'integer', label: 'string', score: 'number' },
    returns: `returns:
  type: object
  required: [value, label, score]
  properties:
    value: { type: integer }
    label: { type: string, description: The label, trimmed in safe mode. }
    score: { type: number }`,
    handler: (fn) => `export interface ${fn}Input {
  value: number;
  label: string;
  mode: 'fast' | 'safe';
}

export function ${fn}(input: ${fn}Input): { value: number; label: string; score: number } {
  const label = input.mode === 'safe' ? input.label.trim() : input.label;
  return { value: input.value + 1, label, score: input.value / 10 };
}`,
    example: `examples:
  - description: counts up
    input: { value: 1, label: first }
    expected_output: { value: 2, label: first }

error_scenarios:
  - description: rejects an empty label
    input: { value: 1, label: '' }
    expected_error: { kind: validation, message_contains: label }`,
  },
  B: {
    params: [
      {
        name: 'text',
        type: 'string',
        required: true,
        yaml: 'type: string\n    required: true\n    description: "Text to transform, e.g. \'hello world\'."',
      },
      { name: 'count', type: 'integer', yaml: 'type: integer\n    default: 1\n    min_value: 0\n    max_value: 100' },
      { name: 'tags', type: 'array', yaml: 'type: array\n    items: { type: string, min_length: 1 }' },
    ],
    outputs: { text: 'string', count: 'integer', tags: 'array' },
    returns: `returns:
  type: object
  required: [text, count, tags]
  properties:
    text: { type: string }
    count: { type: integer }
    tags:
      type: array
      items: { type: string }`,
    handler: (
      fn,
    ) => `export function ${fn}(input: { text: string; count: number; tags?: string[] }): { text: string; count: number; tags: string[] } {
  return { text: input.text.toUpperCase(), count: input.count, tags: input.tags ?? [] };
}`,
    example: `examples:
  - description: upper-cases the text
    input: { text: hello, tags: [a] }
    expected_output: { text: HELLO, count: 1, tags: [a] }`,
  },
  C: {
    params: [
      {
        name: 'id',
        type: 'string',
        required: true,
        yaml: "type: string\n    required: true\n    pattern: '^[A-Za-z0-9_ -]+$'",
      },
      { name: 'amount', type: 'number', required: true, yaml: 'type: number\n    required: true\n    min_value: 0' },
      { name: 'flag', type: 'boolean', yaml: 'type: boolean\n    default: false' },
    ],
    outputs: { id: 'string', amount: 'number', ok: 'boolean', 'meta.source': 'string', 'meta.attempts': 'integer' },
    returns: `returns:
  type: object
  required: [id, amount, ok, meta]
  properties:
    id: { type: string }
    amount: { type: number }
    ok: { type: boolean }
    meta:
      type: object
      required: [source, attempts]
      properties:
        source: { type: string }
        attempts: { type: integer }`,
    handler: (fn) => `export const ${fn} = (input: { id: string; amount: number; flag: boolean }) => ({
  id: input.id,
  amount: Math.round(input.amount * 100) / 100,
  ok: !input.flag,
  meta: { source: 'memory', attempts: 1 },
});`,
    example: `examples:
  - description: rounds the amount
    input: { id: order-1, amount: 1.005 }
    expected_output: { id: order-1, ok: true }
  - description: flags the record
    context: { permissions: [records.write] }
    input: { id: order-2, amount: 3, flag: true }
    expected_output: { ok: false }

error_scenarios:
  - description: rejects a negative amount
    input: { id: order-3, amount: -1 }
    expected_error: { kind: validation, message_contains: amount }`,
  },
};

const ATOM_NAMES = [
  'lookup_account',
  'normalize_text',
  'reserve_order',
  'score_lead',
  'tag_document',
  'charge_invoice',
  'rank_candidates',
  'summarize_thread',
  'archive_record',
  'count_events',
];

/** The atomic tools: name, shape, handler export. */
export const ATOMS = ATOM_NAMES.map((name, index) => {
  const shape = ['A', 'B', 'C'][index % 3];
  const exportName = name.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
  return { name, shape, exportName };
});

/** mulberry32: a small seeded PRNG, so the corpus is the same on every machine. */
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    float: next,
    int: (n) => Math.floor(next() * n),
    chance: (p) => next() < p,
    pick: (list) => list[Math.floor(next() * list.length)],
  };
}

const atomNeedsPermission = (atom) => ATOMS.indexOf(atom) % 4 === 2;

function atomYaml(atom, index) {
  const shape = SHAPES[atom.shape];
  const params = shape.params.map((p) => `  - name: ${p.name}\n    ${p.yaml}`).join('\n');
  const policies = atomNeedsPermission(atom) ? '\npolicies:\n  required_permissions: [records.write]\n' : '';
  return `# Atomic tool ${index + 1} of ${ATOMS.length} (shape ${atom.shape}).
name: ${atom.name}
display_name: ${atom.name
    .split('_')
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join(' ')}
description: Benchmark stand-in number ${index + 1}; does a little pure work on its input.
category: bench
version: 1.${index}.0
tags: [bench, shape-${atom.shape.toLowerCase()}]

parameters:
${params}

${shape.returns}
${policies}
implementation:
  type: function
  module: ./handlers.ts
  export: ${atom.exportName}

${shape.example}
`;
}

function handlersModule() {
  const body = ATOMS.map(
    (atom) => `/** Handler of \`${atom.name}\`. */\n${SHAPES[atom.shape].handler(atom.exportName)}`,
  ).join('\n\n');
  return `/**
 * Handlers of the benchmark's atomic tools. Generated by scripts/corpus.mjs; pure functions, no I/O.
 */
${body}
`;
}

const typeOk = (given, wanted) => given === wanted || (given === 'integer' && wanted === 'number');

/** YAML scalar for a literal string: plain when safe, double-quoted otherwise. */
function str(value) {
  return /^[A-Za-z][A-Za-z0-9 _.-]*$/.test(value) && !/^(true|false|null|yes|no|on|off)$/i.test(value)
    ? value
    : JSON.stringify(value);
}

function compositeYaml(n, available = ATOMS) {
  const r = rng(0x9e3779b9 ^ (n * 2654435761));
  const name = `composite_${String(n).padStart(4, '0')}`;
  const stepCount = 4 + r.int(3);
  const atoms = Array.from({ length: stepCount }, () => r.pick(available));
  const letters = 'abcdefgh';

  // Control flow first: where each step goes on success and on failure.
  const skips = new Set(); // step i jumps over i+1 on success; i+1 is reached through i's failure
  for (let i = 0; i + 2 < stepCount; i += 1) if (!skips.has(i - 1) && r.chance(0.18)) skips.add(i);
  const explicitId = atoms.map(() => r.chance(0.35));
  for (const i of skips) explicitId[i + 2] = true;
  const ids = [];
  const taken = new Set();
  atoms.forEach((atom, i) => {
    if (explicitId[i]) {
      ids[i] = `step_${letters[i]}`;
    } else {
      let id = atom.name;
      for (let k = 2; taken.has(id); k += 1) id = `${atom.name}_${k}`;
      ids[i] = id;
    }
    taken.add(ids[i]);
  });
  // next: may name only explicit ids when a derived id is ambiguous; simplest is to name explicit ids only.
  const steps = atoms.map((atom, i) => {
    const last = i === stepCount - 1;
    let success;
    let successText = null;
    if (skips.has(i)) {
      success = i + 2;
      successText = ids[i + 2];
    } else {
      success = last ? null : i + 1;
      if (last && r.chance(0.3)) successText = 'end';
      else if (!last && explicitId[i + 1] && r.chance(0.5)) successText = ids[i + 1];
    }
    let failure; // index, null (end) or 'stop'
    let failureYaml;
    const roll = r.float();
    if (skips.has(i) || roll < 0.25) {
      // continue to the next step (explicitly named sometimes)
      failure = last ? null : i + 1;
      const nextText = !last && explicitId[i + 1] && r.chance(0.5) ? ids[i + 1] : last && r.chance(0.5) ? 'end' : null;
      failureYaml = `        on_failure:\n          action: continue${nextText ? `\n          next: ${nextText}` : ''}`;
    } else if (roll < 0.55) {
      const retries = 1 + r.int(3);
      const continues = r.chance(0.3);
      failure = continues ? (last ? null : i + 1) : 'stop';
      failureYaml = `        on_failure:\n          action: retry\n          max_retries: ${retries}\n          initial_delay_ms: ${100 * (1 + r.int(5))}${r.chance(0.4) ? '\n          backoff_factor: 1.5' : ''}${r.chance(0.3) ? '\n          max_delay_ms: 2000\n          jitter: true' : ''}${continues ? `\n          continue_on_max_retries: true${!last && explicitId[i + 1] ? `\n          next: ${ids[i + 1]}` : ''}` : ''}`;
    } else if (roll < 0.8) {
      failure = 'stop';
      failureYaml = '        on_failure:\n          action: stop';
    } else {
      failure = 'stop';
      failureYaml = null; // the default: stop
    }
    return { atom, id: ids[i], explicit: explicitId[i], success, successText, failure, failureYaml };
  });

  // Must-defined state at each step (a forward DAG, so one pass in index order).
  const params = {
    seed_value: 'integer',
    seed_label: 'string',
    seed_id: 'string',
    threshold: 'number',
    topics: 'array',
  };
  const must = new Map([[0, new Map(Object.entries(params))]]);
  const join = (to, defs) => {
    if (to === null || to === 'stop') return;
    const previous = must.get(to);
    if (!previous) {
      must.set(to, new Map(defs));
      return;
    }
    for (const key of [...previous.keys()]) if (!defs.has(key)) previous.delete(key);
  };
  let counter = 0;
  const rendered = steps.map((step, i) => {
    const here = must.get(i);
    const vars = [...here.entries()];
    const ofType = (type) => vars.filter(([, t]) => typeOk(t, type)).map(([name]) => name);
    const shape = SHAPES[step.atom.shape];
    const inputs = [];
    for (const param of shape.params) {
      if (!param.required && r.chance(0.4)) continue;
      // `id` has a pattern: only pass it values that match (the id-like ones), as a careful author would.
      const candidates =
        param.type === 'enum'
          ? []
          : ofType(param.type).filter((name) => param.name !== 'id' || name === 'seed_id' || name.startsWith('id_'));
      const useTemplate = candidates.length > 0 && r.chance(0.75);
      if (param.type === 'string') {
        if (useTemplate && r.chance(0.6)) inputs.push(`${param.name}: << state.${r.pick(candidates)} >>`);
        else if (param.name === 'id')
          inputs.push(
            `${param.name}: ${r.chance(0.5) ? `"id-${n}-<< state.${r.pick(ofType('integer'))} >>"` : `rec-${n}-${i}`}`,
          );
        else
          inputs.push(
            `${param.name}: "${r.pick(['Step', 'Run', 'Item'])} ${i + 1} of << state.${r.pick(vars)[0]} >> (<< state.${r.pick(vars)[0]} >>)"`,
          );
      } else if (param.type === 'enum') {
        inputs.push(`${param.name}: ${r.pick(param.values)}`);
      } else if (param.type === 'integer') {
        inputs.push(`${param.name}: ${useTemplate ? `<< state.${r.pick(candidates)} >>` : r.int(50)}`);
      } else if (param.type === 'number') {
        inputs.push(
          `${param.name}: ${useTemplate ? `<< state.${r.pick(candidates)} >>` : (r.int(1000) / 10).toFixed(1)}`,
        );
      } else if (param.type === 'boolean') {
        inputs.push(`${param.name}: ${r.chance(0.5)}`);
      } else if (param.type === 'array') {
        inputs.push(
          `${param.name}: ${useTemplate ? `<< state.${r.pick(candidates)} >>` : `[${r.pick(['alpha', 'beta'])}, gamma]`}`,
        );
      }
    }
    const fields = Object.keys(shape.outputs);
    const mapped = fields.filter(() => r.chance(0.5));
    if (mapped.length === 0) mapped.push(fields[0]);
    const outputs = mapped.map((field) => [field, `${field.replace('.', '_')}_${(counter += 1)}`]);
    const defs = new Map(here);
    for (const [field, to] of outputs) defs.set(to, shape.outputs[field]);
    join(step.success, defs);
    join(step.failure, here);

    const lines = [];
    lines.push(`      # Step ${i + 1}: ${step.atom.name}`);
    lines.push(
      step.explicit ? `      - id: ${step.id}\n        tool: ${step.atom.name}` : `      - tool: ${step.atom.name}`,
    );
    if (r.chance(0.3)) lines.push(`        description: ${str(`Calls ${step.atom.name} for step ${i + 1}`)}`);
    lines.push('        inputs:');
    for (const input of inputs) lines.push(`          ${input}`);
    lines.push('        on_success:');
    lines.push('          map_outputs:');
    for (const [from, to] of outputs) lines.push(`            ${from}: ${to}`);
    if (step.successText) lines.push(`          next: ${step.successText}`);
    if (step.failureYaml) lines.push(step.failureYaml);
    return lines.join('\n');
  });

  const permission = r.chance(0.3) ? `perm.${n % 7}` : null;
  const casefile = r.chance(0.15);
  const policies =
    permission || casefile
      ? `\npolicies:${casefile ? '\n  requires_casefile: true' : ''}${permission ? `\n  required_permissions: [${permission}]` : ''}\n`
      : '';
  const audit = r.chance(0.25)
    ? `\naudit:\n  success_event: bench.${name}.done\n  failure_event: bench.${name}.failed\n  redact_fields: [seed_label]\n`
    : '';
  // An explicit context must also grant what the atomic tools require (the generated tests run it).
  const needs = [
    ...new Set([
      ...(permission ? [permission] : []),
      ...(atoms.some((atom) => atomNeedsPermission(atom)) ? ['records.write'] : []),
    ]),
  ];
  const context =
    permission || casefile
      ? `\n    context: { ${casefile ? `casefile_id: case-${n}, ` : ''}permissions: [${needs.join(', ')}] }`
      : '';
  // The first step failing ends the chain only when its policy stops (retry without continue counts).
  const firstStops = steps[0].failure === 'stop';
  const scenario =
    firstStops && r.chance(0.4)
      ? `

error_scenarios:
  - description: stops when the first tool is down
    input: { seed_value: 1, seed_label: down, seed_id: id-${n} }${context}
    stubs:
      ${steps[0].atom.name}: { error: service unavailable }
    expected_error: { step: ${steps[0].id}, kind: execution, message_contains: unavailable }`
      : '';

  return `# Benchmark composite ${n}: ${stepCount} steps.
name: ${name}
display_name: Composite ${n}
description: >-
  Benchmark composite number ${n}. Chains ${stepCount} atomic tools, passing state between them with
  templates and mapping outputs back into state.
category: bench_group_${Math.floor(n / 100)}
version: 0.${n % 10}.0

parameters:
  - name: seed_value
    type: integer
    required: true
    min_value: 0
  - name: seed_label
    type: string
    required: true
    min_length: 1
    description: "Shown in every step's label of composite ${n}."
  - name: seed_id
    type: string
    required: true
  - name: threshold
    type: number
    default: ${((n % 7) + 1) / 10}
  - name: topics
    type: array
    items: { type: string }
    default: [general]
  - name: note
    type: string
    description: Optional and unused by the steps.
${policies}${audit}
implementation:
  type: composite
  composite:
${r.chance(0.2) ? '    max_step_executions: 50\n' : ''}    steps:
${rendered.join('\n\n')}

examples:
  - description: runs every step
    input: { seed_value: ${n % 50}, seed_label: label ${n}, seed_id: id-${n} }${context}
    expected_output: { seed_label: label ${n} }${scenario}
`;
}

/**
 * Writes the corpus into `dir` (the config dir): `atoms/*.yaml` + `atoms/handlers.ts`, and the
 * composites in `composites/group_NN/` (100 per folder). Returns what it wrote.
 */
export async function writeCorpus(dir, { composites = 1000, atomics = ATOMS.length } = {}) {
  const files = [];
  const atomsDir = path.join(dir, 'atoms');
  const available = ATOMS.slice(0, atomics);
  await mkdir(atomsDir, { recursive: true });
  await writeFile(path.join(atomsDir, 'handlers.ts'), handlersModule());
  for (const [index, atom] of available.entries()) {
    const file = path.join(atomsDir, `${atom.name}.yaml`);
    await writeFile(file, atomYaml(atom, index));
    files.push(file);
  }
  const groups = new Set();
  for (let n = 0; n < composites; n += 1) {
    const group = path.join(dir, 'composites', `group_${String(Math.floor(n / 100)).padStart(2, '0')}`);
    if (!groups.has(group)) {
      await mkdir(group, { recursive: true });
      groups.add(group);
    }
    const file = path.join(group, `composite_${String(n).padStart(4, '0')}.yaml`);
    await writeFile(file, compositeYaml(n, available));
    files.push(file);
  }
  return { files, atomics: available.length, composites };
}

/**
 * One composite of `steps` steps over the first atomic tool, for how the check scales with a composite's
 * length: each step reads what an earlier one mapped; every third runs on a condition and every fifth
 * goes on when it fails, so the data flow has joins. It reads only what every path defines: no diagnostics.
 */
function longCompositeYaml(steps) {
  const [atom] = ATOMS;
  const certain = (i) => i % 3 !== 1 && i % 5 !== 4;
  let last = 'seed_value';
  const lines = [];
  for (let i = 0; i < steps; i += 1) {
    lines.push(`      - id: s${i}`, `        tool: ${atom.name}`);
    lines.push(`        inputs: { value: << state.${last} >>, label: "step ${i} of << state.seed_label >>" }`);
    if (i % 3 === 1) lines.push('        when: state.seed_value > 0');
    lines.push(`        on_success: { map_outputs: { value: n_${i} } }`);
    if (i % 5 === 4) lines.push('        on_failure: { action: continue }');
    if (certain(i)) last = `n_${i}`;
  }
  return `# A composite of ${steps} steps, for the bench.
name: long_composite
description: Chains ${steps} steps, each reading what an earlier one mapped.
parameters:
  - { name: seed_value, type: integer, required: true, min_value: 0 }
  - { name: seed_label, type: string, required: true, min_length: 1 }

implementation:
  type: composite
  composite:
    max_step_executions: ${steps + 1}
    steps:
${lines.join('\n')}

examples:
  - description: runs every step
    input: { seed_value: 1, seed_label: first }
    expected_output: { seed_label: first }
`;
}

/**
 * Writes the atomic tools and one composite of `steps` steps into `dir` (the config dir).
 *
 * @example
 * await writeLongComposite('/tmp/x/config/tools', { steps: 10000 });
 */
export async function writeLongComposite(dir, { steps }) {
  const { files } = await writeCorpus(dir, { composites: 0 });
  const file = path.join(dir, 'long_composite.yaml');
  await writeFile(file, longCompositeYaml(steps));
  return { files: [...files, file] };
}
