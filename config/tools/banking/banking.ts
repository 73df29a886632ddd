/**
 * In-memory banking tools for the nextTool example: a transfer from a locked account hands the
 * customer to an agent by naming the next tool in its result (`_meta.nextTool`).
 */
interface Account {
  id: string;
  name: string;
  locked: boolean;
}

const ACCOUNTS: readonly Account[] = [
  { id: 'acc_checking_001', name: 'Primary Checking', locked: true },
  { id: 'acc_savings_001', name: 'High Yield Savings', locked: false },
];

export function prepareMoneyTransfer(input: { from_account_id: string; to_account_id: string; amount: number }) {
  const from = ACCOUNTS.find((account) => account.id === input.from_account_id);
  if (!from) throw Object.assign(new Error(`no account '${input.from_account_id}'`), { code: 'UNKNOWN_ACCOUNT' });
  if (from.locked) {
    return {
      status: 'locked' as const,
      message: `Your ${from.name} account (${from.id}) is locked. A customer service agent will help you.`,
      _meta: { nextTool: { tool: 'request_agent_handoff', arguments: { reason: `Transfer attempted from locked account ${from.id}` } } },
    };
  }
  return { status: 'prepared' as const, message: `Ready to move ${input.amount.toFixed(2)} from ${from.name}.` };
}

let queue = 0;

export function requestAgentHandoff(input: { reason: string }) {
  queue += 1;
  return { ticket_id: `T-${String(queue).padStart(4, '0')}`, reason: input.reason };
}

/** Approves a payment at a desk; the routing example (`route_payment`) picks the desk. */
export function approvePayment(input: { amount: number; desk: 'auto' | 'french' }) {
  return { decision: 'approved' as const, desk: input.desk, reference: `P-${input.desk.toUpperCase()}-${Math.round(input.amount * 100)}` };
}

const executed = new Map<string, string>();

/**
 * Moves the money. A durable run may call it again for the same step after a crash; the idempotency
 * key it is given is the same then, so the transfer is made once and the same confirmation returned.
 */
export function executeMoneyTransfer(input: { from_account_id: string; to_account_id: string; amount: number }, context: { readonly idempotencyKey: string | null }) {
  const key = context.idempotencyKey;
  const known = key === null ? undefined : executed.get(key);
  if (known) return { confirmation_id: known };
  const confirmation = `C-${String(executed.size + 1).padStart(4, '0')}`;
  if (key !== null) executed.set(key, confirmation);
  return { confirmation_id: confirmation };
}
