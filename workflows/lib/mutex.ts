// A lock for workflow code, after the Mutex of Temporal's safe-message-handlers sample (`runExclusive(fn)`).
// The sample uses the async-mutex package; this one keeps the delivery workflow's original lock, a flag and
// `condition`, because the order in which waiting handlers get the lock decides the order of commands, and
// recorded histories (test/fixtures/histories) must replay unchanged. A `condition` without timeout issues no
// command, so taking and releasing the lock never shows in the history.
//
// Strict since patch `mutex-strict`: the flag is taken inside the condition, so of several handlers blocked at the
// moment the lock is freed only one enters. Runs recorded before the patch replay the old, loose lock (released
// waiters could enter together).
import { condition, patched } from '@temporalio/workflow';

export class Mutex {
  private locked = false;

  /** Whether a holder is inside `runExclusive` now. */
  isLocked(): boolean {
    return this.locked;
  }

  /** Waits until the lock is free, then runs `fn` holding it; released when `fn` settles. */
  async runExclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (patched('mutex-strict')) {
      await condition(() => (this.locked ? false : (this.locked = true)));
    } else {
      await condition(() => !this.locked);
      this.locked = true;
    }
    try {
      return await fn();
    } finally {
      this.locked = false;
    }
  }
}
