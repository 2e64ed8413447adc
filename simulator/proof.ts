// Proof of delivery in the simulator's `delivered` events (design.md "Attempts, returns and proof of delivery"): by
// default each delivered job carries a made-up proof (the recipient's name from the booking, https links on a
// reserved domain, the destination's point when the booking has one); `proof_of_delivery: false` in a company's
// configuration sends none, an object sends that one.
import type { BookingRecord, CompanyConfig } from './types.js';

type Contact = { name?: unknown } | undefined;
type Place = { contact?: Contact; coordinates?: { lat?: unknown; lng?: unknown } | null } | undefined;

/** The proof a `delivered` event of this booking carries, or null for none. */
export function proofFor(config: CompanyConfig, booking: BookingRecord): Record<string, unknown> | null {
  const setting = config.proof_of_delivery ?? true;
  if (setting === false) return null;
  if (setting !== true) return setting;
  const destination = booking.request.destination as Place;
  const name = destination?.contact?.name;
  const point = destination?.coordinates;
  const base = `https://pod.simulator.invalid/${config.slug}/${encodeURIComponent(booking.tracking_ref)}`;
  return {
    recipient_name: typeof name === 'string' && name ? name.slice(0, 200) : 'Recipient',
    photo_url: `${base}/photo.jpg`,
    signature_url: `${base}/signature.png`,
    ...(typeof point?.lat === 'number' && typeof point?.lng === 'number'
      ? { location: { lat: point.lat, lng: point.lng } }
      : {}),
  };
}

/** A `delivered` payload: the PIN when there is one, and the proof. */
export function deliveredPayload(
  config: CompanyConfig,
  booking: BookingRecord,
  pin: string | null | undefined,
): Record<string, unknown> {
  const proof = proofFor(config, booking);
  return { ...(pin ? { pin } : {}), ...(proof ? { proof } : {}) };
}
