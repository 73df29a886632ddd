import { randomUUID } from 'node:crypto';
import type { AuditRecord } from './audit.js';

export interface AuditContextOptions {
  readonly userId: string;
  readonly sessionId: string;
  readonly casefileId?: string | null;
  readonly permissions?: Iterable<string>;
  /** Called with every record as it is made, e.g. to ship it to a log store. */
  readonly onRecord?: (record: AuditRecord) => void;
  /**
   * Whether `trail` keeps every record (default true). A context that serves many chains and ships
   * its records with `onRecord` passes false, so that it does not grow with every attempt.
   */
  readonly keepTrail?: boolean;
}

const MAX_FINISHED_CHAINS = 1000;

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
  readonly #trail: AuditRecord[] = [];
  readonly #chains = new Map<string, ChainRecord>();
  #finished = 0;
  readonly #onRecord: ((record: AuditRecord) => void) | undefined;
  readonly #keepTrail: boolean;

  constructor(options: AuditContextOptions) {
    this.userId = options.userId;
    this.sessionId = options.sessionId;
    this.casefileId = options.casefileId ?? null;
    this.permissions = new Set(options.permissions ?? []);
    this.#onRecord = options.onRecord;
    this.#keepTrail = options.keepTrail ?? true;
  }

  /** Every attempt recorded so far, oldest first; none with `keepTrail: false`. */
  get trail(): readonly AuditRecord[] {
    return this.#trail;
  }

  record(record: AuditRecord): void {
    if (this.#keepTrail) this.#trail.push(record);
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

  /** @internal The executor reports a chain's life here. Finished chains beyond the newest 1,000 are forgotten. */
  trackChain(
    chainId: string,
    chainName: string,
    tools: readonly PlannedToolCall[],
    status: 'running' | 'suspended' | 'success' | 'failed',
  ): void {
    const previous = this.#chains.get(chainId);
    this.#chains.set(chainId, { chainId, chainName, status, tools, reasoning: previous?.reasoning ?? null });
    if ((status === 'success' || status === 'failed') && ++this.#finished > MAX_FINISHED_CHAINS) {
      for (const [id, chain] of this.#chains) {
        if (chain.status === 'success' || chain.status === 'failed') {
          this.#chains.delete(id);
          this.#finished -= 1;
          break;
        }
      }
    }
  }
}
