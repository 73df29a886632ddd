/** The words every surface tells a caller a run came to in: suspended, failed, waiting. */
import { describe, expect, it } from 'vitest';
import { failedText, suspendedText, waitText } from '../../src/runtime/caller-view.js';

const waiting = { step: 'approval', signal: 'approve', schema: {}, deadline: '2026-01-01T00:00:00.000Z' };

describe('the words for a run', () => {
  it('says what a suspended run waits for, to a person and to a model', () => {
    expect(suspendedText('r1', waiting)).toBe(
      "suspended at step 'approval': run 'r1' waits for signal 'approve' until 2026-01-01T00:00:00.000Z",
    );
    expect(suspendedText('r1', { ...waiting, deadline: null }, 'model')).toBe(
      "suspended at step 'approval': run 'r1' waits for signal 'approve' with no time limit; it goes on when the signal comes, so do not call the tool again for it",
    );
    expect(waitText({ signal: 'approve', deadline: null })).toBe("waits for signal 'approve' with no time limit");
  });

  it.each([
    [{ kind: 'validation', step: 'first', message: 'bad input' }, "failed (validation at step 'first'): bad input"],
    [{ kind: 'policy', step: null, message: 'not allowed' }, 'failed (policy): not allowed'],
  ])('says where a run failed and why', (failure, text) => {
    expect(failedText(failure)).toBe(text);
  });
});
