/**
 * Texts that stand in for files on disk: the unsaved documents of an editor (`toolgen lsp`). The load
 * stage reads a file's text here first, so a build sees what the user is typing; nothing after load
 * knows the difference, and check, lower and emit still never touch the disk.
 */
import { readFile } from 'node:fs/promises';

/**
 * Texts by absolute path, set and dropped as documents are opened, edited and closed.
 *
 * @example const overlay = new TextOverlay(); overlay.set('/p/config/tools/a.yaml', 'name: a'); overlay.get('/p/config/tools/a.yaml') // 'name: a'
 */
export class TextOverlay {
  readonly #texts = new Map<string, string>();

  set(file: string, text: string): void {
    this.#texts.set(file, text);
  }

  /** Drops a file's text: the disk's counts again. */
  delete(file: string): void {
    this.#texts.delete(file);
  }

  get(file: string): string | undefined {
    return this.#texts.get(file);
  }

  has(file: string): boolean {
    return this.#texts.has(file);
  }

  /** Every file with a text here, whether or not it exists on disk (a new, unsaved file). */
  files(): string[] {
    return [...this.#texts.keys()];
  }
}

/**
 * A file's text: the overlay's when it has one, else the disk's; null when neither has it.
 *
 * @example await readSourceText('/p/a.yaml', overlay) // the unsaved text, or the saved one
 */
export async function readSourceText(file: string, overlay: TextOverlay | null): Promise<string | null> {
  return overlay?.get(file) ?? (await readFile(file, 'utf8').catch(() => null));
}
