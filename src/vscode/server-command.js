// @ts-check
/**
 * Which toolgen the extension starts: the workspace's own install (`node_modules/toolgen`, found as
 * Node would from the folder), or the folder itself when it is toolgen's repository. Apart from
 * extension.js so that it runs (and is tested) without VS Code.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

/**
 * The path of toolgen's bin for a workspace folder, or null when the folder has no toolgen.
 *
 * @param {string} folder
 * @returns {string | null}
 * @example toolgenBin('/app') // '/app/node_modules/toolgen/dist/cli/bin.js'
 */
function toolgenBin(folder) {
  let manifest;
  try {
    manifest = require.resolve('toolgen/package.json', { paths: [folder] });
  } catch {
    manifest = path.join(folder, 'package.json');
  }
  try {
    const read = JSON.parse(fs.readFileSync(manifest, 'utf8'));
    const bin = typeof read.bin === 'string' ? read.bin : read.bin && read.bin.toolgen;
    if (read.name !== 'toolgen' || typeof bin !== 'string') return null;
    const file = path.resolve(path.dirname(manifest), bin);
    return fs.existsSync(file) ? file : null;
  } catch {
    return null;
  }
}

/**
 * The first folder's toolgen, as a command: `node <bin> lsp` (the client adds `--stdio`).
 *
 * @param {readonly string[]} folders
 * @param {{ node: string, bin: string }} settings
 * @returns {{ command: string, args: string[], cwd: string } | null}
 */
function serverCommand(folders, settings) {
  for (const folder of folders) {
    const bin = settings.bin || toolgenBin(folder);
    if (bin) return { command: settings.node || 'node', args: [bin, 'lsp'], cwd: folder };
  }
  return null;
}

module.exports = { toolgenBin, serverCommand };
