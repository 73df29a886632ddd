/** The one content hash of the build cache: what "the same file" means between runs. */
import { createHash } from 'node:crypto';

/** @example contentHash('name: echo\n').length // 64 */
export function contentHash(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}
