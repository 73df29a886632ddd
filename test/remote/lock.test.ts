/** The lock's text and hashes: canonical JSON, a hash anyone can recompute, and what a reader refuses. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson, lockedTool, lockText, nextLock, parseLock } from '../../src/remote/lock/lock.js';

describe('canonicalJson', () => {
  it.each([
    [{ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } }, '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}'],
    // By UTF-16 code units, never by locale: upper case before lower, 'B' before 'a'.
    [{ a: 1, B: 2, _: 3, Ä: 4 }, '{"B":2,"_":3,"a":1,"Ä":4}'],
    [[{ b: 1, a: 2 }, 'x'], '[{"a":2,"b":1},"x"]'],
    // Names JavaScript gives meaning to stay plain keys.
    [
      JSON.parse('{"properties":{"__proto__":{"type":"string"},"constructor":{}}}'),
      '{"properties":{"__proto__":{"type":"string"},"constructor":{}}}',
    ],
  ])('%j → %s', (value, text) => {
    expect(canonicalJson(value)).toBe(text);
  });
});

describe('lockedTool', () => {
  const listed = {
    name: 'search',
    inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
    annotations: { readOnlyHint: true },
    _meta: { vendor: 'x' },
    icons: [],
    execution: { taskSupport: 'forbidden' },
  };

  it('keeps the pinned fields only, and hashes exactly them, keys sorted', () => {
    const tool = lockedTool(listed);
    expect(Object.keys(tool).sort()).toEqual(['annotations', 'hash', 'inputSchema', 'name']);
    const { hash, ...pinned } = tool;
    const expected = createHash('sha256').update(canonicalJson(pinned)).digest('hex');
    expect(hash).toBe(`sha256:${expected}`);
  });

  it('gives the same hash whatever order the server sends keys in, and another when a schema changes', () => {
    const reordered = {
      annotations: listed.annotations,
      inputSchema: { properties: listed.inputSchema.properties, type: 'object' },
      name: 'search',
    };
    expect(lockedTool(reordered).hash).toBe(lockedTool(listed).hash);
    const changed = { ...listed, inputSchema: { ...listed.inputSchema, required: ['q'] } };
    expect(lockedTool(changed).hash).not.toBe(lockedTool(listed).hash);
  });
});

describe('the lock file', () => {
  it('reads back what it writes: version first, two spaces, a final newline', () => {
    const text = lockText({
      lockfileVersion: 1,
      servers: { b: { serverInfo: { name: 'b', version: '1' }, tools: {} } },
    });
    expect(text).toBe(
      '{\n  "lockfileVersion": 1,\n  "servers": {\n    "b": {\n      "serverInfo": {\n        "name": "b",\n        "version": "1"\n      },\n      "tools": {}\n    }\n  }\n}\n',
    );
    expect(parseLock(text)).toEqual({ lock: JSON.parse(text) });
  });

  it.each([
    ['not JSON', '{', /^it is not JSON/],
    ['an array', '[]', /^it is not a JSON object$/],
    ['no version', '{"servers":{}}', /^it has no lockfileVersion 1$/],
    ['a newer version', '{"lockfileVersion":2,"servers":{}}', /written by a newer toolgen/],
    ['a server without tools', '{"lockfileVersion":1,"servers":{"a":{}}}', /server 'a' has no serverInfo and tools/],
    [
      'a pin nested deeper than toolgen pins (before anything recurses into it)',
      `{"lockfileVersion":1,"servers":{"a":{"serverInfo":{},"tools":{"t":{"name":"t","inputSchema":${'{"not":'.repeat(20_000)}{}${'}'.repeat(20_000)}}}}}}`,
      /^its pin of 'a\/t' nests its inputSchema more than 64 levels deep$/,
    ],
  ])('refuses %s', (_, text, problem) => {
    const parsed = parseLock(text);
    expect('problem' in parsed && parsed.problem).toMatch(problem);
  });
});

describe('nextLock', () => {
  const pin = (version: string) => ({ serverInfo: { name: 's', version }, tools: {} });
  const previous = { a: pin('1'), b: pin('1'), gone: pin('1') };

  it("a pull of some servers replaces them and keeps the other declared servers' pins", () => {
    const lock = nextLock(previous, { b: pin('2') }, { declared: new Set(['a', 'b']), some: true });
    expect(lock).toEqual({ lockfileVersion: 1, servers: { a: pin('1'), b: pin('2') } });
  });

  it('keeps a server called __proto__ as a server', () => {
    const pulled = JSON.parse('{"__proto__":{"serverInfo":{"name":"s","version":"1"},"tools":{}}}');
    const lock = nextLock({}, pulled, { declared: new Set(['__proto__']), some: false });
    expect(Object.keys(lock.servers)).toEqual(['__proto__']);
    expect(lockText(lock)).toContain('"__proto__": {');
  });

  it('a pull of every server holds exactly what it pulled', () => {
    const lock = nextLock(previous, { a: pin('2') }, { declared: new Set(['a']), some: false });
    expect(lock.servers).toEqual({ a: pin('2') });
  });
});
