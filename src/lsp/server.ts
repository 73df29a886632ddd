/**
 * `toolgen lsp`: the Language Server Protocol over stdio. Documents are kept by the protocol's own
 * `TextDocuments` (incremental sync); each edit goes to its project (`workspace.ts`, `project.ts`),
 * whose compiler checks what it affects and publishes diagnostics. Requests read the document as it
 * is now and the project's last build (`completion.ts`, `hover.ts`, `navigation.ts`, `rename.ts`,
 * `quick-fixes.ts`), after waiting for the edits made so far to be compiled.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CodeActionKind,
  DidChangeWatchedFilesNotification,
  FileChangeType,
  ResponseError,
  TextDocuments,
  TextDocumentSyncKind,
  createConnection,
  type CodeAction,
  type Connection,
  type Location,
  type TextEdit,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from '../compiler/diagnostics/diagnostic.js';
import { completionsAt } from './completion.js';
import { toLspDiagnostic, type DiagnosticData } from './diagnostics.js';
import { hoverAt } from './hover.js';
import { definitionsAt, referencesAt, type Place } from './navigation.js';
import type { Project } from './project.js';
import { fixFor } from './quick-fixes.js';
import { refusedName, renameEdits, renamableAt } from './rename.js';
import { Workspace } from './workspace.js';
import { viewOf, type YamlView } from './yaml-view.js';

export interface LanguageServerOptions {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  /** What `initialize` reports. */
  readonly version: string;
}

/**
 * Serves until the client sends `exit` (or closes the stream); the process then exits.
 *
 * @example serveLanguage({ input: process.stdin, output: process.stdout, version: '0.1.0' })
 */
export function serveLanguage(options: LanguageServerOptions): Connection {
  const connection = createConnection(options.input, options.output);
  const documents = new TextDocuments(TextDocument);
  /** The URIs the client uses for the files it opened: diagnostics go back under the same name. */
  const uris = new Map<string, string>();
  const uriOf = (file: string) => uris.get(file) ?? pathToFileURL(file).href;
  const log = (message: string) => connection.console.log(message);
  const publish = (project: { root: string } | null, file: string, found: readonly Diagnostic[], version?: number) => {
    const root = project?.root ?? '/';
    const diagnostics = found.map((d) => toLspDiagnostic(d, root, uriOf));
    void connection.sendDiagnostics({ uri: uriOf(file), diagnostics, ...(version === undefined ? {} : { version }) });
  };
  const workspace = new Workspace((file, found, version) => publish(projectRootOf(file), file, found, version), log);
  const projectRootOf = (file: string) => workspace.projects().find((project) => project.owns(file)) ?? null;
  let watchFiles = false;
  let foldersChange = false;

  connection.onInitialize((params) => {
    const folders = localFiles(params.workspaceFolders?.map((folder) => folder.uri) ?? []);
    if (folders.length === 0 && params.rootUri) folders.push(...localFiles([params.rootUri]));
    workspace.setFolders(folders);
    watchFiles = params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
    foldersChange = params.capabilities.workspace?.workspaceFolders === true;
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        completionProvider: { triggerCharacters: ['.', ' ', '<', ':'] },
        hoverProvider: true,
        definitionProvider: true,
        referencesProvider: true,
        renameProvider: { prepareProvider: true },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
        workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
      },
      serverInfo: { name: 'toolgen', version: options.version },
    };
  });

  connection.onInitialized(() => {
    // Saves by other programs, handler modules, the lock, templates: what the editor has not open.
    if (watchFiles)
      void connection.client.register(DidChangeWatchedFilesNotification.type, {
        watchers: [{ globPattern: '**/*.{yaml,yml,json,hbs,ts,mts,cts,js,mjs,cjs}' }],
      });
    if (foldersChange)
      connection.workspace.onDidChangeWorkspaceFolders((event) => {
        const removed = new Set(localFiles(event.removed.map((folder) => folder.uri)));
        const added = localFiles(event.added.map((folder) => folder.uri));
        workspace.setFolders([...workspace.folders.filter((folder) => !removed.has(folder)), ...added]);
      });
  });

  const projectFor = async (uri: string): Promise<{ file: string; project: Project } | null> => {
    const file = fileOf(uri);
    const project = file ? await workspace.projectOf(file) : null;
    return file && project ? { file, project } : null;
  };

  documents.onDidChangeContent(async ({ document }) => {
    const file = fileOf(document.uri);
    if (!file) return;
    uris.set(file, document.uri);
    const project = await workspace.projectOf(file);
    await project?.edit(file, document.getText(), document.version);
  });
  documents.onDidClose(async ({ document }) => {
    views.delete(document.uri);
    const found = await projectFor(document.uri);
    if (!found) return;
    await found.project.close(found.file);
    uris.delete(found.file);
  });
  connection.onDidChangeWatchedFiles(async ({ changes }) => {
    for (const change of changes) {
      const file = fileOf(change.uri);
      if (!file) continue;
      // A config file that came or went may move files to another project; a changed one its project reads again.
      if (/toolgen\.config\.ya?ml$/.test(file) && change.type !== FileChangeType.Changed) workspace.forget();
      for (const project of workspace.projects()) void project.changedOnDisk(file);
    }
  });

  /** Each open document's text parsed once per version: every request on that version reads the same view. */
  const views = new Map<string, { version: number; view: YamlView }>();
  const viewFor = (document: TextDocument, file: string): YamlView => {
    const known = views.get(document.uri);
    if (known?.version === document.version) return known.view;
    const view = viewOf(document.getText(), file);
    views.set(document.uri, { version: document.version, view });
    return view;
  };

  /** A request's document, its project, and the project once every edit so far is compiled. */
  const requestContext = async (uri: string, position: { line: number; character: number }) => {
    const document = documents.get(uri);
    const found = await projectFor(uri);
    if (!document || !found) return null;
    await found.project.settled();
    const view = viewFor(document, found.file);
    return { document, view, offset: document.offsetAt(position), ...found, state: found.project.state() };
  };
  /** A place as a protocol location (offsets turned into lines and characters of its own text). */
  const locationOf = (place: Place): Location => {
    const text = TextDocument.create(uriOf(place.file), 'yaml', 0, place.text);
    return { uri: uriOf(place.file), range: { start: text.positionAt(place.start), end: text.positionAt(place.end) } };
  };

  connection.onCompletion(async ({ textDocument, position }) => {
    const at = await requestContext(textDocument.uri, position);
    return at ? completionsAt(at) : [];
  });
  connection.onHover(async ({ textDocument, position }) => {
    const at = await requestContext(textDocument.uri, position);
    if (!at) return null;
    const shown = at.project.lastBuild?.diagnostics ?? [];
    const mine = shown.filter((d) => d.location && path.resolve(at.project.root, d.location.file) === at.file);
    const value = hoverAt(at, at.state, mine);
    return value ? { contents: { kind: 'markdown', value } } : null;
  });
  connection.onDefinition(async ({ textDocument, position }) => {
    const at = await requestContext(textDocument.uri, position);
    return at ? definitionsAt(at.view, at.offset, at.file, at.state).map(locationOf) : [];
  });
  connection.onReferences(async ({ textDocument, position, context }) => {
    const at = await requestContext(textDocument.uri, position);
    if (!at) return [];
    const texts = (file: string) => at.project.overlay.get(file);
    return referencesAt(at, at.state, { includeDeclaration: context.includeDeclaration, texts }).map(locationOf);
  });
  connection.onPrepareRename(async ({ textDocument, position }) => {
    const at = await requestContext(textDocument.uri, position);
    const renamable = at ? renamableAt(at.view, at.offset) : null;
    if (!at || !renamable) return null;
    if ('refused' in renamable) throw new ResponseError(0, renamable.refused);
    const { start, end } = renamable.found;
    return {
      range: { start: at.document.positionAt(start), end: at.document.positionAt(end) },
      placeholder: renamable.found.name,
    };
  });
  connection.onRenameRequest(async ({ textDocument, position, newName }) => {
    const at = await requestContext(textDocument.uri, position);
    const renamable = at ? renamableAt(at.view, at.offset) : null;
    if (!at || !renamable) return null;
    if ('refused' in renamable) throw new ResponseError(0, renamable.refused);
    const refused = refusedName(at.view, renamable.found, newName);
    if (refused) throw new ResponseError(0, refused);
    const edits: TextEdit[] = renameEdits(at.view, renamable.found, newName).map((edit) => ({
      range: { start: at.document.positionAt(edit.start), end: at.document.positionAt(edit.end) },
      newText: edit.text,
    }));
    return { changes: { [textDocument.uri]: edits } };
  });
  /** A document's text: the editor's when it is open, else the disk's. */
  const textOf = (uri: string): TextDocument | null => {
    const open = documents.get(uri);
    if (open) return open;
    const file = fileOf(uri);
    if (!file) return null;
    try {
      return TextDocument.create(uri, 'yaml', 0, readFileSync(file, 'utf8'));
    } catch {
      return null;
    }
  };
  connection.onCodeAction(({ textDocument, context }) => {
    const actions: CodeAction[] = [];
    for (const diagnostic of context.diagnostics) {
      if (diagnostic.source !== 'toolgen' || !diagnostic.data) continue;
      const data = diagnostic.data as DiagnosticData;
      // The diagnostic's own place, and the other uses of the same missing name (its related places).
      const places = [
        { uri: textDocument.uri, range: diagnostic.range },
        ...(diagnostic.relatedInformation ?? []).map((related) => related.location),
      ];
      const changes: Record<string, TextEdit[]> = {};
      let title: string | null = null;
      for (const place of places) {
        const document = textOf(place.uri);
        const fix = document ? fixFor(data, document.getText(place.range)) : null;
        if (!document || !fix) continue;
        const start = document.offsetAt(place.range.start);
        const range = { start: document.positionAt(start + fix.start), end: document.positionAt(start + fix.end) };
        (changes[place.uri] ??= []).push({ range, newText: fix.text });
        title ??= places.length > 1 ? `${fix.title} (all ${places.length} uses)` : fix.title;
      }
      if (title === null || !changes[textDocument.uri]) continue;
      actions.push({
        title,
        kind: CodeActionKind.QuickFix,
        diagnostics: [diagnostic],
        isPreferred: true,
        edit: { changes },
      });
    }
    return actions;
  });

  documents.listen(connection);
  connection.listen();
  return connection;
}

/**
 * The local file a URI names, or null: another scheme, another host (`file://server/x.yaml`), or a
 * path Node cannot map (an encoded `/`). What the server cannot read as a file it leaves alone.
 */
export function fileOf(uri: string): string | null {
  if (!uri.startsWith('file:')) return null;
  try {
    return fileURLToPath(uri);
  } catch {
    return null;
  }
}

function localFiles(uris: readonly string[]): string[] {
  return uris.map(fileOf).filter((file): file is string => file !== null);
}
