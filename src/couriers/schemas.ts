// What a courier company is and carries: the places and parcels every quote and delivery names, and the company as
// the API shows it.
import { z } from 'zod';
import { EXAMPLE_COURIER, EXAMPLE_ORIGIN, EXAMPLE_PARCEL } from '../http/examples.js';
import { Uri } from '../http/schemas.js';

const text = (max: number) => z.string().trim().min(1).max(max);

export const Coordinates = z.strictObject({
  lat: z.number().min(-90).max(90),
  lng: z.number().min(-180).max(180),
});

export const Contact = z.strictObject({
  name: z.string().max(200).optional(),
  phone: z.string().max(40).optional(),
});

export const Address = z
  .strictObject({
    address_line: text(500),
    city: text(120),
    province: text(120),
    coordinates: Coordinates.optional(),
    contact: Contact.optional(),
  })
  .meta({ id: 'Address', examples: [EXAMPLE_ORIGIN] });
export type Address = z.infer<typeof Address>;

const dimension = z.number().int().positive().max(1000);
export const Parcel = z
  .strictObject({
    weight_grams: z.number().int().positive().max(1_000_000).describe('grams, 1..1,000,000'),
    description: z.string().max(1000).optional(),
    declared_value_aoa: z.number().int().nonnegative().max(1e14).optional().describe('AOA centavos'),
    length_cm: dimension.optional(),
    width_cm: dimension.optional(),
    height_cm: dimension.optional(),
    parcel_type: z.string().max(60).optional().describe("matched against a courier's parcel_types"),
  })
  .meta({ id: 'Parcel', examples: [EXAMPLE_PARCEL] });
export type Parcel = z.infer<typeof Parcel>;

export const Capabilities = z.object({
  bank_transfer_enabled: z.boolean(),
  bank_name: z.string().nullable(),
  bank_account_holder: z.string().nullable(),
  bank_iban: z.string().nullable(),
  max_weight_grams: z.number().int().nullable(),
  parcel_types: z.array(z.string()).nullable(),
  require_delivery_pin: z.boolean(),
});

export const Courier = z
  .object({
    id: z.uuid(),
    name: z.string(),
    slug: z.string().optional(),
    logo_url: Uri.nullable().optional(),
    base_fee_aoa: z.number().int().nullable().optional(),
    base_eta_minutes: z.number().int().nullable().optional(),
    active_drivers: z.number().int().nullable().optional(),
    service_zones: z.array(z.string()).optional(),
    operating_hours: z.record(z.string(), z.unknown()).nullable().optional(),
    capabilities: Capabilities.optional(),
  })
  .meta({ id: 'Courier', examples: [EXAMPLE_COURIER] });
