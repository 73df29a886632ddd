/**
 * `/events`: server-sent events that carry the store's version whenever it changes, looked at once
 * per `pollMs` (never more often than once a second), and a comment now and then so that proxies keep
 * the stream open. It ends when the browser goes away.
 */
import type { FileRunListing } from '../runtime/index.js';

export function liveEvents(listing: FileRunListing, abort: AbortSignal, pollMs: number): Response {
  const encoder = new TextEncoder();
  let timer: ReturnType<typeof setInterval> | undefined;
  const stop = () => clearInterval(timer);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let last = listing.version();
      let quiet = 0;
      controller.enqueue(encoder.encode(`retry: 2000\ndata: ${last}\n\n`));
      timer = setInterval(() => {
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
      }, pollMs);
      timer.unref?.();
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
