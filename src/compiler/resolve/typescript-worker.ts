/**
 * The worker thread of `typeScriptWorker()`: loads TypeScript at once, then answers the compiler's
 * questions in the order they come.
 */
import { parentPort } from 'node:worker_threads';
import type { WorkerReply, WorkerRequest } from './typescript.js';
import { checkModules, checkSignatures, listExports } from './typescript-work.js';

const port = parentPort!;
port.on('message', (request: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    const value =
      request.kind === 'exports'
        ? listExports(request.file, request.text)
        : request.kind === 'check'
          ? checkSignatures(request.pending)
          : checkModules(request.modules, request.paths);
    reply = { id: request.id, ok: true, value };
  } catch (error) {
    reply = { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
