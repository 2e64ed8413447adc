// How a message of the log is shown: the recipient's phone masked (its country code and last 3 digits).
import type { NotificationRow } from './log-repository.js';

/** ITU country codes of one and two digits (E.164 zones); every other code has three. */
const ONE_DIGIT = new Set(['1', '7']);
const TWO_DIGITS = new Set(
  '20 27 30 31 32 33 34 36 39 40 41 43 44 45 46 47 48 49 51 52 53 54 55 56 57 58 60 61 62 63 64 65 66 81 82 84 86 90 91 92 93 94 95 98'.split(
    ' ',
  ),
);

function countryCodeLength(digits: string): number {
  if (ONE_DIGIT.has(digits.slice(0, 1))) return 1;
  if (TWO_DIGITS.has(digits.slice(0, 2))) return 2;
  return 3;
}

/**
 * `+244 *** *** 123` for 244923000123: the country code and the last 3 digits; the rest, its length included, hidden.
 * A number too short to keep anything back shows nothing but the stars.
 */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  const cc = countryCodeLength(digits);
  if (digits.length < cc + 6) return '*** *** ***';
  return `+${digits.slice(0, cc)} *** *** ${digits.slice(-3)}`;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toNotification(row: NotificationRow) {
  return {
    id: row.id,
    object: 'notification' as const,
    channel: row.channel,
    kind: row.kind,
    to: maskPhone(row.recipient),
    language: row.language,
    body: row.body,
    encoding: row.encoding,
    segments: row.segments,
    status: row.status,
    reason: row.reason,
    attempts: row.attempts,
    created_at: row.created_at.toISOString(),
    submitted_at: iso(row.submitted_at),
    delivered_at: iso(row.delivered_at),
  };
}
