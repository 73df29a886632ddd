import { randomUUID } from 'node:crypto';
import type { AuditRecord } from './audit.js';
import { RuntimeUsageError } from './errors.js';

export interface AuditContextOptions {
  readonly userId: string;
  readonly sessionId: string;
  readonly casefileId?: string | null;
  readonly permissions?: Iterable<string>;
  /** Called with every record as it is made, e.g. to ship it to a log store. */
  readonly onRecord?: (record: AuditRecord) => void;
  /**
   * Whether `trail` keeps records at all (default true). A context that serves many chains and ships
   * its records with `onRecord` passes false.
   */
  readonly keepTrail?: boolean;
  /**
   * The most records `trail` keeps (default 10,000): past it, the oldest is dropped for each new one,
   * so that a context kept for the life of an app does not grow with every attempt. `Infinity` keeps
   * every record.
   */
  readonly maxTrailRecords?: number;
}

const MAX_FINISHED_CHAINS = 1000;
/** About the newest 1,000 ten-step chains, as `chains` keeps 1,000 finished chains. */
export const DEFAULT_MAX_TRAIL_RECORDS = 10_000;

export interface PlannedToolCall {
  readonly name: string;
  readonly parameters?: Readonly<Record<string, unknown>>;
}

export type ChainStatus = 'planned' | 'running' | 'suspended' | 'success' | 'failed';

/** A chain this context planned or ran. */
export interface ChainRecord {
  readonly chainId: string;
  readonly chainName: string | null;
  readonly status: ChainStatus;
  readonly tools: readonly PlannedToolCall[];
  readonly reasoning: string | null;
}

/**
 * Who is calling, in which session and casefile, with which permissions; and the audit trail of
 * every tool attempt made on their behalf. One per request or conversation.
 *
 * @example
 * const context = new AuditContext({ userId: 'u1', sessionId: 's1', permissions: ['gmail.read'] });
 */
export class AuditContext {
  readonly userId: string;
  readonly sessionId: string;
  readonly casefileId: string | null;
  readonly permissions: ReadonlySet<string>;
  /** The trail from `#trailStart` on; the slots before it were dropped and are cut off now and then. */
  #trail: AuditRecord[] = [];
  #trailStart = 0;
  readonly #chains = new Map<string, ChainRecord>();
  /**
   * The records of finished chains in the order they finished, from `#oldest` on, so that forgetting
   * the one that finished first costs nothing. (Looking for it in `#chains` walked past every entry
   * deleted from the front of the map since V8 last rehashed it: about half the cost of a 10-step
   * chain once a context ran 1,000.) A record replaced since (its chain ran again) is passed over.
   */
  #finished: ChainRecord[] = [];
  #oldest = 0;
  /** How many chains in `#chains` are finished. */
  #finishedCount = 0;
  readonly #onRecord: ((record: AuditRecord) => void) | undefined;
  /** 0 with `keepTrail: false`. */
  readonly #maxTrail: number;

  constructor(options: AuditContextOptions) {
    this.userId = options.userId;
    this.sessionId = options.sessionId;
    this.casefileId = options.casefileId ?? null;
    this.permissions = new Set(options.permissions ?? []);
    this.#onRecord = options.onRecord;
    const max = options.maxTrailRecords ?? DEFAULT_MAX_TRAIL_RECORDS;
    if (!(max >= 0 && (Number.isInteger(max) || max === Infinity)))
      throw new RuntimeUsageError(`maxTrailRecords must be a whole number of at least 0, or Infinity; got ${max}`);
    this.#maxTrail = options.keepTrail === false ? 0 : max;
  }

  /** The attempts recorded, oldest first: the newest `maxTrailRecords` (10,000 by default); none with `keepTrail: false`. */
  get trail(): readonly AuditRecord[] {
    if (this.#trailStart > 0) this.#compactTrail();
    return this.#trail;
  }

  record(record: AuditRecord): void {
    if (this.#maxTrail > 0) {
      this.#trail.push(record);
      if (this.#trail.length - this.#trailStart > this.#maxTrail) this.#dropOldestRecord();
    }
    this.#onRecord?.(record);
  }

  /** Lets go of the oldest record at once, and cuts the dropped slots off once there are as many as the bound. */
  #dropOldestRecord(): void {
    this.#trail[this.#trailStart] = undefined as unknown as AuditRecord;
    this.#trailStart += 1;
    if (this.#trailStart >= this.#maxTrail) this.#compactTrail();
  }

  #compactTrail(): void {
    this.#trail = this.#trail.slice(this.#trailStart);
    this.#trailStart = 0;
  }

  hasPermission(permission: string): boolean {
    return this.permissions.has(permission);
  }

  /** Records a planned sequence of tool calls and returns its chain id. */
  planChain(tools: readonly PlannedToolCall[], options: { reasoning?: string; chainName?: string } = {}): string {
    const chainId = randomUUID();
    this.#chains.set(chainId, {
      chainId,
      chainName: options.chainName ?? null,
      status: 'planned',
      tools: [...tools],
      reasoning: options.reasoning ?? null,
    });
    return chainId;
  }

  /** Chains planned or running now. */
  get activeChains(): ReadonlyMap<string, ChainRecord> {
    const active = new Map<string, ChainRecord>();
    for (const [id, chain] of this.#chains) {
      if (chain.status === 'planned' || chain.status === 'running') active.set(id, chain);
    }
    return active;
  }

  /** Every chain this context has planned or run, by id. */
  get chains(): ReadonlyMap<string, ChainRecord> {
    return this.#chains;
  }

  /** @internal The executor reports a chain's life here. Past 1,000 finished chains, the one that finished first is forgotten. */
  trackChain(
    chainId: string,
    chainName: string,
    tools: readonly PlannedToolCall[],
    status: 'running' | 'suspended' | 'success' | 'failed',
  ): void {
    const previous = this.#chains.get(chainId);
    const record: ChainRecord = { chainId, chainName, status, tools, reasoning: previous?.reasoning ?? null };
    this.#chains.set(chainId, record);
    if (previous !== undefined && isFinished(previous)) this.#finishedCount -= 1;
    if (!isFinished(record)) return;
    this.#finished.push(record);
    this.#finishedCount += 1;
    if (this.#finishedCount > MAX_FINISHED_CHAINS || this.#finished.length > 3 * MAX_FINISHED_CHAINS)
      this.#forgetFinished();
  }

  /** Forgets the chains that finished first, past the newest 1,000, and lets go of replaced records. */
  #forgetFinished(): void {
    // Every finished chain's record is in `#finished` from `#oldest` on, so this stops in time.
    while (this.#finishedCount > MAX_FINISHED_CHAINS) {
      const oldest = this.#finished[this.#oldest]!;
      this.#oldest += 1;
      if (this.#chains.get(oldest.chainId) === oldest) {
        this.#chains.delete(oldest.chainId);
        this.#finishedCount -= 1;
      }
    }
    if (this.#oldest >= MAX_FINISHED_CHAINS || this.#finished.length > 3 * MAX_FINISHED_CHAINS) {
      this.#finished = this.#finished.filter(
        (chain, index) => index >= this.#oldest && this.#chains.get(chain.chainId) === chain,
      );
      this.#oldest = 0;
    }
  }
}

function isFinished(chain: ChainRecord): boolean {
  return chain.status === 'success' || chain.status === 'failed';
}
