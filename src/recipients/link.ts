// The recipient link (docs/recipients.md): the tracking page with the recipient's forms unlocked by the delivery's
// token (deliveries.recipient_token). The SMS messages carry it; the tracking page checks it in constant time.
import { timingSafeEqual } from 'node:crypto';

export function recipientUrl(baseUrl: string, deliveryId: string, token: string): string {
  return `${baseUrl}/track/${deliveryId}?r=${encodeURIComponent(token)}`;
}

/** Whether `given` (the `r` query parameter) is the delivery's token; constant time, any input. */
export function recipientTokenMatches(expected: string, given: unknown): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}
