/**
 * `/events`: server-sent events that carry the store's version whenever it changes, and a comment now
 * and then so that proxies keep the stream open. It ends when the browser goes away.
 *
 * Where the listing can tell of writes (the file store's `fs.watch` on `runs/`, a notification, not a
 * poll), a write wakes the stream at once, so a page sees it within a moment; the store is also looked
 * at once per `pollMs` (never more often than once a second), for a listing that cannot tell (a
 * database's) or a file system whose notifications do not come.
 */
import type { RunListing } from '../runtime/index.js';

export function liveEvents(listing: RunListing, abort: AbortSignal, pollMs: number): Response {
  const encoder = new TextEncoder();
  let timer: ReturnType<typeof setInterval> | undefined;
  let unwatch: (() => void) | undefined;
  let stopped = false;
  const stop = () => {
    stopped = true;
    clearInterval(timer);
    unwatch?.();
  };
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      abort.addEventListener('abort', () => {
        stop();
        try {
          controller.close();
        } catch {
          // Already closed.
        }
      });
      let last = await listing.version();
      if (stopped) return;
      let quiet = 0;
      let looking = false;
      controller.enqueue(encoder.encode(`retry: 2000\ndata: ${last}\n\n`));
      const look = async () => {
        // One look at a time: a slow database must not pile them up.
        if (looking || stopped) return;
        looking = true;
        try {
          const version = await listing.version();
          if (stopped) return;
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
        } finally {
          looking = false;
        }
      };
      timer = setInterval(() => void look(), pollMs);
      timer.unref?.();
      unwatch = listing.watch?.(() => void look());
    },
    cancel: stop,
  });
  return new Response(stream, {
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' },
  });
}
