import { randomUUID } from 'node:crypto';
import type { AuditRecord } from './audit.js';

export interface AuditContextOptions {
  readonly userId: string;
  readonly sessionId: string;
  readonly casefileId?: string | null;
  readonly permissions?: Iterable<string>;
  /** Called with every record as it is made, e.g. to ship it to a log store. */
  readonly onRecord?: (record: AuditRecord) => void;
}

export interface PlannedToolCall {
  readonly name: string;
  readonly parameters?: Readonly<Record<string, unknown>>;
}

export type ChainStatus = 'planned' | 'running' | 'succeeded' | 'failed';

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
  readonly #trail: AuditRecord[] = [];
  readonly #chains = new Map<string, ChainRecord>();
  readonly #onRecord: ((record: AuditRecord) => void) | undefined;

  constructor(options: AuditContextOptions) {
    this.userId = options.userId;
    this.sessionId = options.sessionId;
    this.casefileId = options.casefileId ?? null;
    this.permissions = new Set(options.permissions ?? []);
    this.#onRecord = options.onRecord;
  }

  /** Every attempt recorded so far, oldest first. */
  get trail(): readonly AuditRecord[] {
    return this.#trail;
  }

  record(record: AuditRecord): void {
    this.#trail.push(record);
    this.#onRecord?.(record);
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

  /** @internal Used by the executor to track a chain's life. */
  updateChain(chainId: string, update: Omit<ChainRecord, 'chainId' | 'reasoning'> & { reasoning?: string | null }): void {
    const previous = this.#chains.get(chainId);
    this.#chains.set(chainId, { chainId, reasoning: previous?.reasoning ?? null, ...update, ...(update.reasoning === undefined ? {} : { reasoning: update.reasoning }) });
  }
}
