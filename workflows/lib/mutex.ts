// A lock for workflow code, after the Mutex of Temporal's safe-message-handlers sample (`runExclusive(fn)`): a flag
// and `condition`. The flag is taken inside the condition, so of several handlers blocked at the moment the lock is
// freed only one enters. A `condition` without timeout issues no command, so the lock never shows in the history.
import { condition } from '@temporalio/workflow';

export class Mutex {
  private locked = false;

  /** Whether a holder is inside `runExclusive` now. */
  isLocked(): boolean {
    return this.locked;
  }

  /** Waits until the lock is free, then runs `fn` holding it; released when `fn` settles. */
  async runExclusive<T>(fn: () => Promise<T>): Promise<T> {
    await condition(() => (this.locked ? false : (this.locked = true)));
    try {
      return await fn();
    } finally {
      this.locked = false;
    }
  }
}
