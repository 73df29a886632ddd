/**
 * `toolgen lsp` on the bundled examples (config/tools), driven over stdio by the protocol library's own
 * client: diagnostics as the text changes (never saved: the files on disk stay as they are),
 * completion, hover, definition, references, rename and quick fixes, each at an exact position.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeAction, CompletionItem, Hover, Location, WorkspaceEdit } from 'vscode-languageserver-protocol';
import { startLsp, uriOf, type LspClient } from '../helpers/lsp.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TOOLS = path.join(ROOT, 'config/tools');
const PIPELINE = path.join(TOOLS, 'google_workspace/gmail_to_drive_pipeline.yaml');
const TRIAGE = path.join(TOOLS, 'google_workspace/inbox_triage.yaml');
const pipelineText = readFileSync(PIPELINE, 'utf8');
const triageText = readFileSync(TRIAGE, 'utf8');

/** The position of `needle` (its `nth` occurrence) in a text, moved `shift` characters on. */
function at(text: string, needle: string, shift = 0, nth = 1): { line: number; character: number } {
  let index = -1;
  for (let n = 0; n < nth; n += 1) index = text.indexOf(needle, index + 1);
  if (index < 0) throw new Error(`no '${needle}' in the text`);
  const offset = index + shift;
  const before = text.slice(0, offset);
  return { line: before.split('\n').length - 1, character: offset - before.lastIndexOf('\n') - 1 };
}

const range = (line: number, start: number, end: number) => ({
  start: { line, character: start },
  end: { line, character: end },
});

let client: LspClient;
beforeAll(async () => {
  client = await startLsp(ROOT);
  client.open(PIPELINE);
  client.open(TRIAGE);
  // The bundled examples are clean.
  expect(await client.diagnostics(PIPELINE)).toEqual([]);
  expect(await client.diagnostics(TRIAGE)).toEqual([]);
  // The first build of the bundled project: longer than a hook's default 10 s on a busy machine.
}, 120_000);
afterAll(() => client?.stop());

const labels = (items: CompletionItem[] | null) => (items ?? []).map((item) => item.label);
const complete = (file: string, position: { line: number; character: number }) =>
  client.request<CompletionItem[]>('textDocument/completion', { textDocument: { uri: uriOf(file) }, position });

describe('diagnostics as you type', () => {
  it('a misspelt variable is reported at once, with the CLI code, range, message and hint, fixed by a quick fix, and cleared when it is mended', async () => {
    const broken = pipelineText.replace('content: << state.found_messages >>', 'content: << state.found_mesages >>');
    const version = client.change(PIPELINE, broken);
    const [found, ...more] = await client.diagnostics(PIPELINE, version);
    expect(more).toEqual([]);
    expect(found).toMatchObject({
      range: range(48, 19, 44),
      severity: 1,
      code: 'TG4001',
      source: 'toolgen',
      message: "state.found_mesages is never defined; did you mean 'found_messages'?",
      data: { hint: 'state holds the parameters and what map_outputs and transform set', suggestion: 'found_messages' },
    });
    expect(client.published.get(PIPELINE)?.version).toBe(version);

    const hover = await client.request<Hover>('textDocument/hover', {
      textDocument: { uri: uriOf(PIPELINE) },
      position: { line: 48, character: 21 },
    });
    expect((hover.contents as { value: string }).value).toContain(
      '**TG4001** hint: state holds the parameters and what map_outputs and transform set',
    );

    const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri: uriOf(PIPELINE) },
      range: found!.range,
      context: { diagnostics: [found] },
    });
    expect(actions).toEqual([
      expect.objectContaining({
        title: "Change to 'found_messages'",
        kind: 'quickfix',
        edit: { changes: { [uriOf(PIPELINE)]: [{ range: range(48, 28, 41), newText: 'found_messages' }] } },
      }),
    ]);

    const mended = client.change(PIPELINE, pipelineText);
    expect(await client.diagnostics(PIPELINE, mended)).toEqual([]);
  });

  it('an edit to a tool reports the problem it makes in its callers; closing it reads the disk again', async () => {
    const uploadFile = path.join(TOOLS, 'google_workspace/drive_upload_file.yaml');
    const upload = readFileSync(uploadFile, 'utf8');
    client.open(uploadFile);
    await client.diagnostics(uploadFile);
    // file_name becomes fileName: the pipeline passes an input the tool no longer takes (one cause: no TG5002 for it).
    const renamed = client.change(uploadFile, upload.replace('- name: file_name', '- name: fileName'));
    await client.diagnostics(uploadFile, renamed);
    const pipeline = await client.diagnostics(PIPELINE);
    expect(pipeline).toEqual([
      expect.objectContaining({
        code: 'TG5001',
        range: range(47, 10, 19),
        message: expect.stringContaining('file_name'),
      }),
    ]);
    client.close(uploadFile);
    expect(await client.diagnostics(PIPELINE)).toEqual([]);
  });
});

describe('completion', () => {
  it("offers the project's tools after tool:, with their descriptions, and not the tool itself", async () => {
    const items = await complete(PIPELINE, at(pipelineText, 'tool: gmail_search_messages', 'tool: '.length));
    expect(labels(items)).toEqual(
      expect.arrayContaining(['gmail_search_messages', 'drive_upload_file', 'echo_tool', 'inbox_triage']),
    );
    expect(labels(items)).not.toContain('gmail_to_drive_pipeline');
    expect(items.find((item) => item.label === 'drive_upload_file')).toMatchObject({
      detail: expect.stringContaining('Drive'),
    });
  });

  it('offers step ids and end after next:', async () => {
    const items = await complete(PIPELINE, at(pipelineText, 'next: drive_upload_file', 'next: '.length));
    expect(labels(items)).toEqual(['gmail_search_messages', 'drive_upload_file', 'end']);
  });

  it('offers every step id and end after next: with nothing typed yet, each replacing what is typed', async () => {
    const text = pipelineText.replace('next: drive_upload_file', 'next: ');
    const version = client.change(PIPELINE, text);
    await client.diagnostics(PIPELINE, version);
    const cursor = at(text, 'next: \n', 'next: '.length);
    const items = await complete(PIPELINE, cursor);
    expect(labels(items)).toEqual(['gmail_search_messages', 'drive_upload_file', 'end']);
    expect(items[1]).toMatchObject({
      filterText: 'drive_upload_file',
      textEdit: { range: { start: cursor, end: cursor }, newText: 'drive_upload_file' },
    });
    // Half typed, with the rest of a word after the cursor: the whole word is replaced.
    const typed = pipelineText.replace('next: drive_upload_file', 'next: drxx');
    await client.diagnostics(PIPELINE, client.change(PIPELINE, typed));
    const word = at(typed, 'next: drxx', 'next: '.length);
    const [first] = await complete(PIPELINE, { ...word, character: word.character + 2 });
    expect(first!.textEdit).toEqual({
      range: { start: word, end: { ...word, character: word.character + 4 } },
      newText: 'gmail_search_messages',
    });
    client.change(PIPELINE, pipelineText);
  });

  it("offers the called tool's parameters not given yet, required first, with their types", async () => {
    const text = pipelineText.replace(
      '          content: << state.found_messages >>\n          mime_type: application/json\n',
      '          \n',
    );
    const version = client.change(PIPELINE, text);
    await client.diagnostics(PIPELINE, version);
    const items = await complete(PIPELINE, at(text, 'json\n          \n', 'json\n          '.length));
    expect(items.map((item) => [item.label, item.detail])).toEqual([
      ['content', 'any (required)'],
      ['mime_type', 'string'],
    ]);
    client.change(PIPELINE, pipelineText);
  });

  it('offers, inside << >>, the variables set on the paths to the step, with their types', async () => {
    const items = await complete(PIPELINE, at(pipelineText, 'state.found_messages >>', 'state.'.length));
    expect(items.map((item) => [item.label, item.detail])).toEqual([
      ['search_query', 'string'],
      ['max_results', 'integer'],
      ['drive_folder_name', 'string'],
      [
        'found_messages',
        expect.stringMatching(/^\{ id: string; from: string; subject: string; unread: boolean.*\}\[\]$/),
      ],
      ['total_found', 'integer'],
    ]);
  });

  it('offers step ids after steps., and the fields of a value of known shape after a dot', async () => {
    const text = pipelineText.replace(
      'content: << state.found_messages >>',
      'content: << steps.gmail_search_messages.messages.x >>',
    );
    const version = client.change(PIPELINE, text);
    await client.diagnostics(PIPELINE, version);
    const steps = await complete(PIPELINE, at(text, 'steps.gmail_search_messages', 'steps.'.length));
    expect(labels(steps)).toEqual(['gmail_search_messages']);
    const fields = await complete(
      PIPELINE,
      at(text, 'steps.gmail_search_messages.', 'steps.gmail_search_messages.'.length),
    );
    expect(labels(fields)).toEqual(['messages', 'message_count']);
    const items = await complete(PIPELINE, at(text, '.messages.x', '.messages.'.length));
    expect(labels(items)).toEqual(['id', 'from', 'subject', 'unread']);
    client.change(PIPELINE, pipelineText);
  });

  it('offers in JSONata the variables set before the step, and in a transform what the step itself maps', async () => {
    const when = await complete(TRIAGE, at(triageText, 'state.urgent_count > 0', 'state.'.length));
    expect(labels(when)).toEqual(['query', 'folder', 'messages', 'summaries', 'urgent_count']);
    // A transform's type, where its expression says it ($count(…)): not any.
    expect(when.find((item) => item.label === 'urgent_count')?.detail).toBe('integer');
    const transform = await complete(TRIAGE, at(triageText, 'state.summaries[urgent]', 'state.'.length));
    expect(labels(transform)).toEqual(['query', 'folder', 'messages', 'summaries']);
  });
});

describe('hover', () => {
  it("shows a tool's signature: parameters, required first, with types; what it returns", async () => {
    const hover = await client.request<Hover>('textDocument/hover', {
      textDocument: { uri: uriOf(PIPELINE) },
      position: at(pipelineText, 'tool: drive_upload_file', 'tool: '.length + 2),
    });
    const text = (hover.contents as { value: string }).value;
    expect(text).toMatch(/^\*\*drive_upload_file\*\* \(function tool\)/);
    expect(text).toContain('- `file_name: string` (required)');
    expect(text).toContain('- `mime_type: string` (optional');
    expect(text).toContain('returns: `{');
  });

  it("shows a state variable's type and where it is set", async () => {
    const hover = await client.request<Hover>('textDocument/hover', {
      textDocument: { uri: uriOf(PIPELINE) },
      position: at(pipelineText, 'state.found_messages >>', 'state.f'.length),
    });
    const text = (hover.contents as { value: string }).value;
    expect(text).toMatch(/^state `found_messages: \{ id: string;/);
    expect(text).toContain('- an output mapped by step `gmail_search_messages` (line 39)');
    expect(text).toContain('set on every path to this step');
  });

  it('shows the policies of a tool that has them', async () => {
    const hover = await client.request<Hover>('textDocument/hover', {
      textDocument: { uri: uriOf(PIPELINE) },
      position: at(pipelineText, 'name: gmail_to_drive_pipeline', 'name: '.length),
    });
    expect((hover.contents as { value: string }).value).toContain(
      'policies: requires a casefile; permissions: gmail.read, drive.write',
    );
  });
});

describe('definition and references', () => {
  const definition = (file: string, position: { line: number; character: number }) =>
    client.request<Location[]>('textDocument/definition', { textDocument: { uri: uriOf(file) }, position });

  it("goes from a step's tool to its YAML and its handler's export", async () => {
    const found = await definition(PIPELINE, at(pipelineText, 'tool: gmail_search_messages', 'tool: g'.length));
    expect(found).toEqual([
      { uri: uriOf(path.join(TOOLS, 'google_workspace/gmail_search_messages.yaml')), range: range(0, 6, 27) },
      expect.objectContaining({ uri: uriOf(path.join(TOOLS, 'google_workspace/workspace.ts')) }),
    ]);
    const handler = readFileSync(path.join(TOOLS, 'google_workspace/workspace.ts'), 'utf8');
    const exported = found[1]!.range.start;
    expect(handler.split('\n')[exported.line]!.slice(exported.character)).toMatch(/^gmailSearchMessages\b/);
  });

  it('goes from next to its step, and from state.x to what sets it', async () => {
    expect(await definition(PIPELINE, at(pipelineText, 'next: drive_upload_file', 'next: d'.length))).toEqual([
      { uri: uriOf(PIPELINE), range: range(45, 8, 12) },
    ]);
    expect(await definition(PIPELINE, at(pipelineText, 'state.found_messages >>', 'state.f'.length))).toEqual([
      { uri: uriOf(PIPELINE), range: range(38, 22, 36) },
    ]);
    expect(await definition(TRIAGE, at(triageText, '<< message >>', 3))).toEqual([
      { uri: uriOf(TRIAGE), range: range(27, 14, 21) },
    ]);
  });

  it('finds the references of a state variable in its file, and of a tool in the whole project', async () => {
    const variable = await client.request<Location[]>('textDocument/references', {
      textDocument: { uri: uriOf(PIPELINE) },
      position: at(pipelineText, 'found_messages', 2),
      context: { includeDeclaration: true },
    });
    expect(variable).toEqual([
      { uri: uriOf(PIPELINE), range: range(38, 22, 36) },
      { uri: uriOf(PIPELINE), range: range(48, 28, 42) },
    ]);
    const tool = await client.request<Location[]>('textDocument/references', {
      textDocument: { uri: uriOf(PIPELINE) },
      position: at(pipelineText, 'tool: drive_upload_file', 'tool: d'.length),
      context: { includeDeclaration: false },
    });
    const places = tool.map(
      (place) => `${path.relative(TOOLS, new URL(place.uri).pathname)}:${place.range.start.line + 1}`,
    );
    expect(places.sort()).toEqual([
      'google_workspace/gmail_to_drive_pipeline.yaml:46',
      'google_workspace/gmail_to_drive_pipeline.yaml:79',
      'google_workspace/inbox_triage.yaml:47',
    ]);
  });
});

describe('rename', () => {
  it('renames a state variable across the file: where it is set and every template that reads it', async () => {
    const position = at(pipelineText, 'found_messages', 2);
    const prepared = await client.request('textDocument/prepareRename', {
      textDocument: { uri: uriOf(PIPELINE) },
      position,
    });
    expect(prepared).toEqual({ range: range(38, 22, 36), placeholder: 'found_messages' });
    const edit = await client.request<WorkspaceEdit>('textDocument/rename', {
      textDocument: { uri: uriOf(PIPELINE) },
      position,
      newName: 'messages_found',
    });
    expect(edit.changes![uriOf(PIPELINE)]).toEqual([
      { range: range(38, 22, 36), newText: 'messages_found' },
      { range: range(48, 28, 42), newText: 'messages_found' },
    ]);
  });

  it("renames a step id: its id, steps.x in templates and JSONata, a next, an error scenario's step", async () => {
    const text = triageText
      .replace('over: << state.messages >>', 'over: << steps.search.messages >>')
      .replace('when: state.urgent_count > 0', 'when: state.urgent_count > 0 and $count(steps.search.messages) > 0')
      .replace(
        '          map_outputs: { messages: messages }',
        '          map_outputs: { messages: messages }\n          next: search_done',
      )
      .replace(
        '      - id: summarise',
        '      - id: search_done\n        tool: echo_tool\n        inputs: { message: done }\n\n      - id: summarise',
      )
      .concat(
        'error_scenarios:\n  - description: the search fails\n    input: { query: x }\n    stubs: { gmail_search_messages: { error: down } }\n    expected_error: { step: search, kind: execution }\n',
      );
    const version = client.change(TRIAGE, text);
    await client.diagnostics(TRIAGE, version);
    const edit = await client.request<WorkspaceEdit>('textDocument/rename', {
      textDocument: { uri: uriOf(TRIAGE) },
      position: at(text, 'id: search', 'id: s'.length),
      newName: 'lookup',
    });
    const edits = edit.changes![uriOf(TRIAGE)]!;
    expect(
      edits.map((one) => [
        one.range.start.line + 1,
        text.split('\n')[one.range.start.line]!.slice(one.range.start.character, one.range.end.character),
      ]),
    ).toEqual([
      [18, 'search'],
      [32, 'search'],
      [46, 'search'],
      [82, 'search'],
    ]);
    expect(edits.every((one) => one.newText === 'lookup')).toBe(true);
    // `next: search_done` names another step, which keeps its name.
    expect(edits.some((one) => one.range.start.line === 22)).toBe(false);
    client.change(TRIAGE, triageText);
  });

  it('refuses to rename a step to an id already in use, or a variable to one already set', async () => {
    await expect(
      client.request('textDocument/rename', {
        textDocument: { uri: uriOf(TRIAGE) },
        position: at(triageText, 'id: search', 'id: s'.length),
        newName: 'summarise',
      }),
    ).rejects.toThrow("step id 'summarise' is already in use: two steps would have one id");
    await expect(
      client.request('textDocument/rename', {
        textDocument: { uri: uriOf(PIPELINE) },
        position: at(pipelineText, 'found_messages', 2),
        newName: 'total_found',
      }),
    ).rejects.toThrow('state.total_found is already set here: the two variables would become one');
  });

  it('refuses a step whose id is derived from its tool, and a name that is not one', async () => {
    await expect(
      client.request('textDocument/prepareRename', {
        textDocument: { uri: uriOf(PIPELINE) },
        position: at(pipelineText, 'next: drive_upload_file', 'next: d'.length),
      }),
    ).rejects.toThrow(/has no id of its own/);
    await expect(
      client.request('textDocument/rename', {
        textDocument: { uri: uriOf(PIPELINE) },
        position: at(pipelineText, 'found_messages', 2),
        newName: 'two words',
      }),
    ).rejects.toThrow(/not a valid variable name/);
  });
});
