/** Drift between a pinned server and what it lists now: by hash, reported by field, in a stable order. */
import { describe, expect, it } from 'vitest';
import { serverDrift, hasDrift } from '../../src/remote/lock/drift.js';
import { lockedTool, type LockedServer } from '../../src/remote/lock/lock.js';

const server = (...tools: { name: string; [field: string]: unknown }[]): LockedServer => ({
  serverInfo: { name: 'notes', version: '1.0.0' },
  tools: Object.fromEntries(tools.map((tool) => [tool.name, lockedTool(tool)])),
});

const read = { name: 'read', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } };
const write = { name: 'write', inputSchema: { type: 'object' }, description: 'Writes a note' };

describe('serverDrift', () => {
  it('finds nothing when the server lists what was pinned, whatever its version says', () => {
    const live = { ...server(read, write), serverInfo: { name: 'notes', version: '2.0.0' } };
    const drift = serverDrift(server(read, write), live);
    expect(drift).toEqual({ added: [], removed: [], changed: [] });
    expect(hasDrift(drift)).toBe(false);
  });

  it('lists tools added and removed, sorted by name', () => {
    const drift = serverDrift(
      server(read, write),
      server({ name: 'zap', inputSchema: {} }, read, { name: 'append', inputSchema: {} }),
    );
    expect(drift).toEqual({ added: ['append', 'zap'], removed: ['write'], changed: [] });
    expect(hasDrift(drift)).toBe(true);
  });

  it('says which fields of a changed tool differ: the schemas first', () => {
    const changedRead = {
      ...read,
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      outputSchema: { type: 'object' },
    };
    const changedWrite = { ...write, description: 'Writes a note, and says so' };
    const drift = serverDrift(server(read, write), server(changedRead, changedWrite));
    expect(drift.changed).toEqual([
      { tool: 'read', fields: ['inputSchema', 'outputSchema'] },
      { tool: 'write', fields: ['description'] },
    ]);
  });

  it('sees a schema whose keys only moved as unchanged', () => {
    const reordered = { name: 'read', inputSchema: { properties: { path: { type: 'string' } }, type: 'object' } };
    expect(serverDrift(server(read), server(reordered)).changed).toEqual([]);
  });

  it('treats a tool named like an Object property as a tool', () => {
    const drift = serverDrift(server(read), server(read, { name: 'constructor', inputSchema: {} }));
    expect(drift.added).toEqual(['constructor']);
  });
});
