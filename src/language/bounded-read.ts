/**
 * A stream read as UTF-8 text up to a bound: what an API answers and what a document server sends
 * may not end, and neither is read past its bound.
 */

/**
 * The text of `body` (empty when there is none), or null when it runs past `maxBytes`: the stream is
 * then cancelled (which closes its connection) and nothing more is read.
 *
 * @example await boundedText(response.body, 8 * 1024 * 1024) // '{"id":1}', or null past 8 MiB
 */
export async function boundedText(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<string | null> {
  if (body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return chunks.length === 1
    ? Buffer.from(chunks[0]!.buffer, chunks[0]!.byteOffset, chunks[0]!.byteLength).toString('utf8')
    : Buffer.concat(chunks).toString('utf8');
}
