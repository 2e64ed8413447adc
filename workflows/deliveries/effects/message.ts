// What a trigger brings to its transition's effects (workflows/deliveries/transitions.ts).
import type { CancelAnswer } from './ask-courier-to-cancel.js';

/** Columns written beside the event (the booking a redispatch moves to). */
export interface RecordExtra {
  trackingRef?: string | null;
  companyId?: string;
  quotedFeeAoa?: number;
}

export interface Message {
  /** The event's payload, as recorded. */
  payload: Record<string, unknown>;
  /** The event's source when not the table's (the API's request names one). */
  source?: string;
  extra?: RecordExtra;
  /** switchCompany: the company the next booking goes to (absent: the same one). */
  company?: { companyId: string; slug: string };
  /** releaseBooking: the booked job needs no release (the courier confirmed the cancellation, or it stays booked). */
  keepBooking?: boolean;
  /** askCourierToCancel: what the courier already answered (asked outside the lock). */
  courierAnswer?: CancelAnswer;
}
