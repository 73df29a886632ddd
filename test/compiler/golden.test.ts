/**
 * generated/ is the golden output of the bundled examples: what the compiler produces must match it
 * byte for byte, on every run.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Compiler } from '../../src/compiler/compile.js';
import { compareWithDisk } from '../../src/compiler/write/files.js';
import { optionsOf } from '../helpers/mcp.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('the bundled examples', () => {
  it('compile without problems', async () => {
    const result = await new Compiler(await optionsOf(root)).build();
    expect(result.diagnostics).toEqual([]);
    expect(result.built).toEqual([
      'approve_payment',
      'approved_transfer',
      'compare_data',
      'compare_weather',
      'drive_upload_file',
      'echo_chain_demo',
      'echo_tool',
      'execute_money_transfer',
      'fallback_data_tool',
      'get_weather',
      'gmail_search_messages',
      'gmail_to_drive_pipeline',
      'inbox_triage',
      'prepare_money_transfer',
      'primary_data_tool',
      'process_results',
      'remember_note',
      'request_agent_handoff',
      'reserve_stock',
      'resilient_lookup',
      'resilient_workflow',
      'route_payment',
      'send_alert',
      'summarize_message',
      'transfer_with_handoff',
    ]);
  });

  it('produce exactly the committed generated/ files', async () => {
    const result = await new Compiler(await optionsOf(root)).build();
    for (const file of result.files) {
      expect(file.content, path.relative(root, file.path)).toBe(readFileSync(file.path, 'utf8'));
    }
    expect(await compareWithDisk(result.files, result.keep, path.join(root, 'generated'))).toEqual({
      stale: [],
      orphans: [],
    });
  });

  it('produce the same bytes on every run', async () => {
    const first = await new Compiler(await optionsOf(root)).build();
    const second = await new Compiler(await optionsOf(root)).build();
    expect(second.files).toEqual(first.files);
  });

  it('lower the seed examples to explicit plans', async () => {
    const { plans } = await new Compiler(await optionsOf(root)).build();
    expect(plans.get('gmail_to_drive_pipeline')).toEqual({
      name: 'gmail_to_drive_pipeline',
      entry: 'gmail_search_messages',
      maxStepExecutions: 1000,
      steps: [
        {
          kind: 'call',
          id: 'gmail_search_messages',
          tool: 'gmail_search_messages',
          inputs: { query: '<< state.search_query >>', max_results: '<< state.max_results >>' },
          onSuccess: {
            mapOutputs: [
              { from: 'messages', to: 'found_messages' },
              { from: 'message_count', to: 'total_found' },
            ],
            next: 'drive_upload_file',
          },
          onFailure: { action: 'stop' },
        },
        {
          kind: 'call',
          id: 'drive_upload_file',
          tool: 'drive_upload_file',
          inputs: {
            file_name: '<< state.drive_folder_name >>_archive.json',
            content: '<< state.found_messages >>',
            mime_type: 'application/json',
          },
          onSuccess: {
            mapOutputs: [
              { from: 'file_id', to: 'drive_file_id' },
              { from: 'web_view_link', to: 'archive_link' },
            ],
            next: null,
          },
          onFailure: {
            action: 'retry',
            maxRetries: 3,
            backoff: { initialMs: 500, factor: 2, maxMs: 30000, jitter: false },
            afterRetries: { action: 'stop' },
          },
        },
      ],
    });
  });
});
