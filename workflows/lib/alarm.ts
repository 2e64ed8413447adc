// One timer for a deadline that moves (the delivery's state budgets and SLA), for workflow code. It is armed for the
// earliest deadline asked for and re-armed only when a new deadline comes earlier than the armed one; a later
// deadline keeps the armed timer, and when that rings early the caller looks at its deadline again. A status change
// then costs no timer at all (the budgets are hours long and alike), where a `condition` with a timeout per wait
// starts one timer and cancels another.
import { sleep } from '@temporalio/workflow';

export class Alarm {
  private armedAt: number | null = null;
  private rang = false;

  /** Arms the alarm for `at` (epoch ms, workflow time) unless it rings at or before that already. */
  set(at: number): void {
    if (this.armedAt !== null && this.armedAt <= at && !this.rang) return;
    this.armedAt = at;
    this.rang = false;
    // Never cancelled: a timer replaced by an earlier one rings unheard, one left at the end dies with the run.
    void sleep(Math.max(at - Date.now(), 1)).then(() => {
      if (this.armedAt === at) this.rang = true;
    });
  }

  /** Whether the armed timer has rung; true disarms it. */
  take(): boolean {
    if (!this.rang) return false;
    this.rang = false;
    this.armedAt = null;
    return true;
  }

  /** Whether the armed timer has rung (for a `condition`). */
  get ringing(): boolean {
    return this.rang;
  }
}
