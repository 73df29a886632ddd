/**
 * The VS Code extension as `npm run build` packs it (scripts/vsix.mjs): a zip VS Code can install
 * (`[Content_Types].xml` first, the manifest, `extension/` with the client and every package it
 * requires), the same bytes from the same inputs, and a client that finds the workspace's own toolgen.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a script of the build, in JavaScript
import { buildVsix } from '../../scripts/vsix.mjs';

const REPO = path.resolve(import.meta.dirname, '../..');
const out = mkdtempSync(path.join(os.tmpdir(), 'toolgen-vsix-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** A zip's entries, by name, read from its central directory. */
function unzip(bytes: Buffer): Map<string, Buffer> {
  const end = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = bytes.readUInt16LE(end + 10);
  let at = bytes.readUInt32LE(end + 16);
  const entries = new Map<string, Buffer>();
  for (let n = 0; n < count; n += 1) {
    const method = bytes.readUInt16LE(at + 10);
    const size = bytes.readUInt32LE(at + 20);
    const nameLength = bytes.readUInt16LE(at + 28);
    const local = bytes.readUInt32LE(at + 42);
    const name = bytes.toString('utf8', at + 46, at + 46 + nameLength);
    const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
    const data = bytes.subarray(start, start + size);
    entries.set(name, method === 8 ? inflateRawSync(data) : data);
    at += 46 + nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
  }
  return entries;
}

describe('the VS Code extension', () => {
  const file: string = buildVsix(out);
  const bytes = readFileSync(file);
  const entries = unzip(bytes);
  const root = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8'));

  it('is a .vsix of the repository version: content types first, the manifest, the client and what it requires', () => {
    expect(path.basename(file)).toBe(`toolgen-vscode-${root.version}.vsix`);
    expect([...entries.keys()][0]).toBe('[Content_Types].xml');
    const manifest = JSON.parse(entries.get('extension/package.json')!.toString());
    expect(manifest).toMatchObject({ name: 'toolgen-vscode', version: root.version, main: './extension.js' });
    expect(entries.get('extension.vsixmanifest')!.toString()).toContain(
      `<Identity Language="en-US" Id="toolgen-vscode" Version="${root.version}" Publisher="toolgen" />`,
    );
    for (const name of [
      'extension/extension.js',
      'extension/server-command.js',
      'extension/README.md',
      'extension/node_modules/vscode-languageclient/lib/node/main.js',
      'extension/node_modules/vscode-languageclient/package.json',
      'extension/node_modules/vscode-languageserver-protocol/package.json',
      'extension/node_modules/vscode-jsonrpc/package.json',
    ])
      expect(entries.has(name), name).toBe(true);
    const types = entries.get('[Content_Types].xml')!.toString();
    for (const extension of ['.js', '.json', '.md', '.vsixmanifest'])
      expect(types).toContain(`Extension="${extension}"`);
  });

  it('is the same bytes when built again', () => {
    const again = mkdtempSync(path.join(os.tmpdir(), 'toolgen-vsix-'));
    try {
      expect(readFileSync(buildVsix(again)).equals(bytes)).toBe(true);
    } finally {
      rmSync(again, { recursive: true, force: true });
    }
  });

  it("starts the workspace's own toolgen: node_modules/toolgen's bin, or the repository's own", () => {
    const require = createRequire(import.meta.url);
    const { serverCommand, toolgenBin } = require('../../src/vscode/server-command.js');
    const app = mkdtempSync(path.join(os.tmpdir(), 'toolgen-app-'));
    try {
      const installed = path.join(app, 'node_modules/toolgen');
      mkdirSync(path.join(installed, 'dist/cli'), { recursive: true });
      writeFileSync(
        path.join(installed, 'package.json'),
        JSON.stringify({
          name: 'toolgen',
          bin: { toolgen: './dist/cli/bin.js' },
          exports: { './package.json': './package.json' },
        }),
      );
      writeFileSync(path.join(installed, 'dist/cli/bin.js'), '');
      expect(serverCommand([app], { node: 'node', bin: '' })).toEqual({
        command: 'node',
        args: [path.join(installed, 'dist/cli/bin.js'), 'lsp'],
        cwd: app,
      });
      expect(toolgenBin(REPO)).toBe(path.join(REPO, 'dist/cli/bin.js'));
      expect(serverCommand([os.tmpdir()], { node: 'node', bin: '' })).toBeNull();
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  });
});
