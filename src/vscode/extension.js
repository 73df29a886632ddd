// @ts-check
/**
 * The VS Code client of `toolgen lsp`: it starts the workspace's own toolgen (so the editor checks
 * with the version the project builds with) over stdio, for the YAML files of the workspace. The
 * server decides which files are tools; it leaves other YAML alone.
 */
'use strict';
const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');
const { serverCommand } = require('./server-command.js');

/** @type {LanguageClient | undefined} */
let client;

/** @param {import('vscode').ExtensionContext} context */
async function activate(context) {
  const settings = vscode.workspace.getConfiguration('toolgen');
  const folders = (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath);
  const server = serverCommand(folders, { node: settings.get('node', 'node'), bin: settings.get('bin', '') });
  if (!server) {
    void vscode.window.showWarningMessage(
      'toolgen: no toolgen in this workspace (npm install --save-dev toolgen), so its language server is not started.',
    );
    return;
  }
  const executable = {
    command: server.command,
    args: server.args,
    transport: TransportKind.stdio,
    options: { cwd: server.cwd },
  };
  client = new LanguageClient(
    'toolgen',
    'toolgen',
    { run: executable, debug: executable },
    { documentSelector: [{ scheme: 'file', language: 'yaml' }] },
  );
  context.subscriptions.push({ dispose: () => void client?.stop() });
  await client.start();
}

function deactivate() {
  return client?.stop();
}

module.exports = { activate, deactivate };
