/**
 * The projects the build benches of remote tools compare (mcp.mjs, http.mjs): `composites` composites
 * that call `tools` tools in 3-step chains, the callee of each step named by the caller, and the same
 * tools as local function tools (YAML, one JavaScript module of handlers, which the build does not
 * type-check), so that the two builds differ only in where the signatures come from.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Tool n's name: `tool_0007`. Each takes `text` (and an optional integer `n`) and returns `text` and `length`. */
export const toolName = (n) => `tool_${String(n).padStart(4, '0')}`;

/** The composites `flow_<n>.yaml` under `dir/config/tools`, step k of flow n calling `callee((n * 3 + k) % tools)`. */
export function writeComposites(dir, { tools, composites }, callee) {
  mkdirSync(path.join(dir, 'config/tools'), { recursive: true });
  for (let n = 0; n < composites; n += 1)
    writeFileSync(
      path.join(dir, `config/tools/flow_${String(n).padStart(4, '0')}.yaml`),
      `name: flow_${String(n).padStart(4, '0')}
description: Calls three tools in a row
parameters:
  - { name: text, type: string, required: true }
implementation:
  type: composite
  composite:
    steps:
${[0, 1, 2]
  .map(
    (k) => `      - id: s${k}
        tool: ${callee((n * 3 + k) % tools)}
        inputs: { text: "<< state.${k === 0 ? 'text' : `t${k - 1}`} >>", n: ${k} }
        on_success: { map_outputs: { text: t${k} } }
`,
  )
  .join('')}`,
    );
}

/** The `tools` tools as local function tools under `dir/config/tools`, their handlers in one module. */
export function writeLocalTools(dir, tools) {
  mkdirSync(path.join(dir, 'config/tools'), { recursive: true });
  const handlers = [];
  for (let n = 0; n < tools; n += 1) {
    writeFileSync(
      path.join(dir, `config/tools/${toolName(n)}.yaml`),
      `name: ${toolName(n)}
description: Tool ${n}
parameters:
  - { name: text, type: string, required: true }
  - { name: n, type: integer }
returns:
  type: object
  properties: { text: { type: string }, length: { type: integer } }
  required: [text, length]
implementation: { type: function, module: ./handlers.js, export: ${toolName(n).replace('_', '')} }
`,
    );
    handlers.push(
      `export const ${toolName(n).replace('_', '')} = (input) => ({ text: input.text, length: input.text.length });`,
    );
  }
  writeFileSync(path.join(dir, 'config/tools/handlers.js'), `${handlers.join('\n')}\n`);
}
