/**
 * `/events`: server-sent events that carry the store's version whenever it changes, and a comment now
 * and then so that proxies keep the stream open. It ends when the browser goes away.
 *
 * A write to the store's journals wakes the stream at once (`fs.watch` on `runs/`, a notification, not
 * a poll), so a page sees it within a moment; the store is also looked at once per `pollMs` (never more
 * often than once a second), for a file system whose notifications do not come.
 */
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { FileRunListing } from '../runtime/index.js';

/** How long a burst of writes may take before the stream looks: one rescan for the burst. */
const SETTLE_MS = 50;

export function liveEvents(listing: FileRunListing, abort: AbortSignal, pollMs: number): Response {
  const encoder = new TextEncoder();
  let timer: ReturnType<typeof setInterval> | undefined;
  let settling: ReturnType<typeof setTimeout> | undefined;
  let watcher: FSWatcher | undefined;
  const stop = () => {
    clearInterval(timer);
    clearTimeout(settling);
    watcher?.close();
  };
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let last = listing.version();
      let quiet = 0;
      controller.enqueue(encoder.encode(`retry: 2000\ndata: ${last}\n\n`));
      const look = () => {
        try {
          const version = listing.version();
          if (version !== last) {
            last = version;
            quiet = 0;
            controller.enqueue(encoder.encode(`data: ${version}\n\n`));
          } else if (++quiet * pollMs >= 15_000) {
            quiet = 0;
            controller.enqueue(encoder.encode(': still here\n\n'));
          }
        } catch {
          stop();
        }
      };
      timer = setInterval(look, pollMs);
      timer.unref?.();
      try {
        watcher = watch(path.join(listing.dir, 'runs'), { persistent: false }, () => {
          if (settling) return;
          settling = setTimeout(() => {
            settling = undefined;
            listing.invalidate();
            look();
          }, SETTLE_MS);
        });
        watcher.on('error', () => watcher?.close());
      } catch {
        // No notifications here (no runs/ yet, or a file system without them): the poll alone.
      }
      abort.addEventListener('abort', () => {
        stop();
        try {
          controller.close();
        } catch {
          // Already closed.
        }
      });
    },
    cancel: stop,
  });
  return new Response(stream, {
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' },
  });
}
