// What a courier may put in a fleet event's payload, and how it is stored. Pure code: the API (which
// validates it) and the workflow (which records it) both import it.
//
// A fleet event's recorded payload is
//   { courier: { <allow-listed courier fields> }, courier_occurred_at, webhook_id, [ignored, reason, status, pin_verified] }
// The courier's own fields live under `courier` only; the top-level fields are the service's, set after copying,
// so a courier can never forge `ignored`, `reason`, `status` or `pin_verified`. The PIN (`payload.pin`) is checked
// by the API and never stored.

/** Largest fleet event `payload` the API accepts, in bytes of JSON (PIN included). */
export const COURIER_PAYLOAD_MAX_BYTES = 4096;

/** The courier fields kept (docs/deliveries.md "Fleet events"); anything else in the payload is dropped. */
export const COURIER_PAYLOAD_FIELDS = [
  'driver_name',
  'driver_phone',
  'vehicle',
  'location',
  'eta',
  'eta_minutes',
  'note',
  'reason',
  'proof',
  'cash_collected_aoa',
] as const;
export type CourierPayloadField = (typeof COURIER_PAYLOAD_FIELDS)[number];
export type CourierPayload = Partial<Record<CourierPayloadField, unknown>>;

/** The allow-listed courier fields of a payload (absent and null fields are left out). */
export function pickCourierPayload(payload: Record<string, unknown> | null | undefined): CourierPayload {
  const picked: CourierPayload = {};
  if (!payload) return picked;
  for (const field of COURIER_PAYLOAD_FIELDS) {
    if (Object.prototype.hasOwnProperty.call(payload, field) && payload[field] !== undefined && payload[field] !== null)
      picked[field] = payload[field];
  }
  return picked;
}
