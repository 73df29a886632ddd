/**
 * The saves waiting for a rebuild in watch mode, and the one rebuild running. A burst of saves within
 * the debounce window makes one rebuild; saves made while a rebuild runs make the next one, as soon as
 * it ends; two rebuilds never run at once. Whether a rebuild runs is decided when it starts (a flag set
 * before the first await), never by a promise that may have settled before it was stored: a window
 * whose saves the running loop already took once left the watch waiting for itself, silent for good.
 */
export class RebuildQueue {
  readonly #pending = new Set<string>();
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #open = false;

  /**
   * @example new RebuildQueue((files) => compileAndWrite(files), 30)
   */
  constructor(
    private readonly rebuild: (files: string[]) => Promise<void>,
    private readonly debounceMs: number,
  ) {}

  /** A file changed: it is rebuilt once the window of saves closes (or after the running rebuild). */
  add(file: string): void {
    this.#pending.add(file);
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#flush(), this.debounceMs);
  }

  /** Rebuilds may run from now on (the first build is done); saves made during it are rebuilt now. */
  open(): void {
    this.#open = true;
    if (this.#pending.size > 0 && !this.#timer) this.#flush();
  }

  /** Starts no more rebuilds, and waits for the running one (and the saves it takes up). */
  async close(): Promise<void> {
    this.#open = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#running;
  }

  #flush(): void {
    this.#timer = null;
    // The running rebuild picks the new saves up when it ends.
    if (this.#running || !this.#open || this.#pending.size === 0) return;
    this.#running = this.#drain().finally(() => {
      this.#running = null;
    });
  }

  async #drain(): Promise<void> {
    while (this.#pending.size > 0) {
      const files = [...this.#pending];
      this.#pending.clear();
      await this.rebuild(files);
    }
  }
}
