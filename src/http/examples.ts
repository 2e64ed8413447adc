// Example bodies of the OpenAPI document: a parcel from a shop in Ingombota to a customer in Alvalade, Luanda, priced,
// booked and cancelled. The request and response schemas carry them as `.meta({ examples: [...] })`; the reference's
// "Try it out" starts from them, and src/http/plugins/openapi.ts copies each onto its request or response body.
// Problem examples come from src/http/error-catalog.ts. test/http/contract.test.ts checks that every body has one and that
// the request examples work against the live API.

const QUOTE_ID = '3f6c1e0a-7b2d-4c9e-8a51-2d4f6b8c0e17';
const COMPANY_ID = '8a0e4b6c-2f1d-4e3a-9b7c-5d6e7f8a9b0c';
const DELIVERY_ID = 'b2c4d6e8-0a1b-4c3d-8e5f-6a7b8c9d0e1f';
const CREATED = '2026-11-23T09:15:04.218Z';

export const EXAMPLE_ORIGIN = {
  address_line: 'Rua Rainha Ginga 29, Ingombota',
  city: 'Luanda',
  province: 'Luanda',
  coordinates: { lat: -8.8147, lng: 13.2302 },
  contact: { name: 'Loja Kianda', phone: '+244 923 000 111' },
};
export const EXAMPLE_DESTINATION = {
  address_line: 'Rua Comandante Gika 225, Alvalade',
  city: 'Luanda',
  province: 'Luanda',
  coordinates: { lat: -8.8303, lng: 13.2432 },
  contact: { name: 'Ana Domingos', phone: '+244 912 345 678' },
};
export const EXAMPLE_PARCEL = { weight_grams: 1200, description: 'Sapatos', declared_value_aoa: 2_500_000 };

export const EXAMPLE_QUOTE_REQUEST = {
  origin: EXAMPLE_ORIGIN,
  destination: EXAMPLE_DESTINATION,
  parcel: EXAMPLE_PARCEL,
};

export const EXAMPLE_QUOTE = {
  quote_id: QUOTE_ID,
  valid_until: '2026-11-23T09:29:58.041Z',
  company_id: COMPANY_ID,
  fee_aoa: 230_000,
  eta_minutes: 66,
  company_name: 'Kandengue Express',
  company_slug: 'kandengue-express',
  company_logo_url: null,
  require_delivery_pin: false,
  livemode: true,
};

export const EXAMPLE_COURIER = {
  id: COMPANY_ID,
  name: 'Kandengue Express',
  slug: 'kandengue-express',
  logo_url: null,
  base_fee_aoa: 150_000,
  base_eta_minutes: 60,
  active_drivers: 42,
  service_zones: ['Luanda', 'Bengo'],
  operating_hours: { mon_fri: '08:00-18:00', sat: '09:00-13:00' },
  capabilities: {
    bank_transfer_enabled: false,
    bank_name: null,
    bank_account_holder: null,
    bank_iban: null,
    max_weight_grams: 20_000,
    parcel_types: null,
    require_delivery_pin: false,
  },
};

export const EXAMPLE_CREATE_DELIVERY = {
  quote_id: QUOTE_ID,
  ...EXAMPLE_QUOTE_REQUEST,
  payment_method: 'prepaid',
  options: { metadata: { order_id: 'KIANDA-1042' } },
};

export const EXAMPLE_CREATED_EVENT = {
  id: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
  event_type: 'delivery.created',
  occurred_at: CREATED,
  source: 'api',
  payload: { status: 'pending', payment_method: 'prepaid' },
};

export const EXAMPLE_DELIVERY_SUMMARY = {
  id: DELIVERY_ID,
  reference: 'DLV-7KQ2M9XH4T',
  status: 'pending',
  livemode: true,
  inserted_at: CREATED,
  ...EXAMPLE_QUOTE_REQUEST,
  quoted_fee_aoa: 230_000,
  courier: { name: 'Kandengue Express', tracking_ref: null },
  metadata: { order_id: 'KIANDA-1042' },
};

export const EXAMPLE_DELIVERY = {
  ...EXAMPLE_DELIVERY_SUMMARY,
  company_id: COMPANY_ID,
  payment_method: 'prepaid',
  cash_collect_aoa: null,
  scheduled_pickup_at: null,
  scheduled_delivery_at: null,
  sla_deadline_at: '2026-11-24T10:21:04.218Z',
  tracking_url: `https://api.example.ao/track/${DELIVERY_ID}`,
  delivery_pin: null,
  metadata: { order_id: 'KIANDA-1042' },
  return_of: null,
  return_delivery_id: null,
  updated_at: CREATED,
  events: [EXAMPLE_CREATED_EVENT],
  proof_of_delivery: null,
  recipient_answers: null,
  recovery: null,
};

/** A return to sender (POST /v1/deliveries/{id}/return): the original's route swapped, prepaid, no cash, `-R`. */
export const EXAMPLE_RETURN_DELIVERY = {
  ...EXAMPLE_DELIVERY,
  id: '6f1d2c3b-8a9e-4f70-b1c2-d3e4f5a6b7c8',
  reference: 'DLV-7KQ2M9XH4T-R',
  origin: EXAMPLE_DELIVERY.destination,
  destination: EXAMPLE_DELIVERY.origin,
  tracking_url: 'https://api.example.ao/track/6f1d2c3b-8a9e-4f70-b1c2-d3e4f5a6b7c8',
  return_of: DELIVERY_ID,
  events: [
    {
      ...EXAMPLE_CREATED_EVENT,
      id: '0b7e4a52-3c1d-4e8f-9a6b-5c4d3e2f1a0b',
      payload: { status: 'pending', payment_method: 'prepaid', return_of: DELIVERY_ID },
    },
  ],
};

/** The widget's read with the publishable key alone: city and province of each address, the parcel's size only. */
const cityOnly = ({ city, province }: { city: string; province: string }) => ({ city, province });

export const EXAMPLE_WIDGET_DELIVERY = {
  id: DELIVERY_ID,
  reference: 'DLV-7KQ2M9XH4T',
  status: 'pending',
  livemode: true,
  inserted_at: CREATED,
  origin: cityOnly(EXAMPLE_ORIGIN),
  destination: cityOnly(EXAMPLE_DESTINATION),
  parcel: { weight_grams: EXAMPLE_PARCEL.weight_grams },
  payment_method: 'prepaid',
  quoted_fee_aoa: 230_000,
  courier: { name: 'Kandengue Express' },
  scheduled_pickup_at: null,
  scheduled_delivery_at: null,
  tracking_url: `https://api.example.ao/track/${DELIVERY_ID}`,
  events: [{ id: EXAMPLE_CREATED_EVENT.id, event_type: 'delivery.created', occurred_at: CREATED }],
};

export const EXAMPLE_TRACKING = {
  reference: 'DLV-7KQ2M9XH4T',
  status: 'assigned',
  events: [
    { event_type: 'delivery.created', occurred_at: CREATED },
    { event_type: 'delivery.dispatched', occurred_at: '2026-11-23T09:15:05.102Z' },
    { event_type: 'delivery.assigned', occurred_at: '2026-11-23T09:17:41.930Z' },
  ],
};

export const EXAMPLE_FLEET_EVENT = {
  tracking_ref: 'KX-20261123-0042',
  event_type: 'in_transit',
  occurred_at: '2026-11-23T09:41:12.000Z',
  payload: {
    driver_name: 'Mateus Kiala',
    vehicle: 'Moto LD-21-34-AB',
    eta: '2026-11-23T10:05:00.000Z',
    location: { lat: -8.8201, lng: 13.2355 },
  },
};

/** A failed delivery attempt: the reason is one of the list (design.md "Attempts, returns and proof of delivery"). */
export const EXAMPLE_ATTEMPT_FAILED_EVENT = {
  tracking_ref: 'KX-20261123-0042',
  event_type: 'attempt_failed',
  occurred_at: '2026-11-23T10:12:40.000Z',
  payload: { reason: 'recipient_unavailable', note: 'Ninguém em casa; vizinho sem contacto.' },
};

export const EXAMPLE_WEBHOOK_ENDPOINT = {
  id: 'd4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f7a',
  url: 'https://loja-kianda.ao/webhooks/entregas',
  description: 'Encomendas da loja',
  events: null,
  status: 'enabled',
  disabled_reason: null,
  health: 'healthy',
  failing_since: null,
  secret_rotated_until: null,
  livemode: true,
  created_at: CREATED,
};

export const EXAMPLE_WEBHOOK_ATTEMPT = {
  id: 'e5f6a7b8-c9d0-4e1f-8a2b-3c4d5e6f7a8b',
  message_id: `msg_${EXAMPLE_CREATED_EVENT.id}`,
  event_id: EXAMPLE_CREATED_EVENT.id,
  event_type: 'delivery.created',
  attempt: 1,
  status: 'succeeded',
  status_code: 200,
  latency_ms: 87,
  error: null,
  trigger: 'event',
  attempted_at: '2026-11-23T09:15:04.611Z',
};

export const EXAMPLE_PAGINATION = { limit: 50, offset: 0, has_more: false };

/** The `proof` of a courier's `delivered` event, shown to the merchant as the delivery's `proof_of_delivery`. */
export const EXAMPLE_PROOF_OF_DELIVERY = {
  recipient_name: 'Ana Domingos',
  photo_url: 'https://cdn.kandengue.example/pod/KX-20261123-0042.jpg',
  signature_url: 'https://cdn.kandengue.example/pod/KX-20261123-0042-signature.png',
  location: { lat: -8.8383, lng: 13.2344 },
};

/** A delivery whose courier refused the booking: what POST /v1/deliveries/{id}/recover accepts for it. */
export const EXAMPLE_STALLED_DELIVERY = {
  ...EXAMPLE_DELIVERY,
  status: 'stalled',
  recovery: {
    reason: 'courier_rejected',
    previous_status: 'pending',
    actions: ['redispatch', 'resume', 'mark_failed', 'cancel'],
  },
};

export const EXAMPLE_RECOVER_REQUESTS = [
  { action: 'redispatch' },
  { action: 'redispatch', company_id: COMPANY_ID },
  { action: 'resume' },
  { action: 'mark_failed', reason: 'customer_moved' },
  { action: 'cancel' },
];

export const EXAMPLE_DELIVERED_FLEET_EVENT = {
  tracking_ref: 'KX-20261123-0042',
  event_type: 'delivered',
  occurred_at: '2026-11-23T10:03:27.000Z',
  payload: { pin: '4821', proof: EXAMPLE_PROOF_OF_DELIVERY },
};
