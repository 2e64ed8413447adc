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

  /**
   * Waits until the lock is free, then runs `fn` holding it; released when `fn` settles. A free lock is taken at once,
   * as the `condition` would take it (its function runs at the call): without the `condition`'s promise and its
   * await, since every promise a workflow creates costs a captured stack trace in the SDK's promise hook
   * (docs/architecture.md "What one delivery costs").
   */
  runExclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.locked) {
      this.locked = true;
      return this.holding(fn);
    }
    return condition(() => (this.locked ? false : (this.locked = true))).then(() => this.holding(fn));
  }

  private async holding<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } finally {
      this.locked = false;
    }
  }
}
