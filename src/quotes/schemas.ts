// Request and response schemas of POST /v1/quotes and /v1/widget/quotes (OpenAPI through the zod type provider).
// The quote service's and the courier adapters' types are derived from them.
import { z } from 'zod';
import { EXAMPLE_QUOTE, EXAMPLE_QUOTE_REQUEST } from '../http/examples.js';
import { Uri } from '../http/schemas.js';
import { Address, Parcel } from '../couriers/schemas.js';

export const QuoteRequestBody = z.strictObject({ origin: Address, destination: Address, parcel: Parcel }).meta({
  id: 'QuoteRequest',
  description: 'A field not named here is refused: 422 validation_failed, code unknown_field.',
  examples: [EXAMPLE_QUOTE_REQUEST],
});
/** What the quote service and the courier adapters are asked to price. */
export type QuoteRequest = z.infer<typeof QuoteRequestBody>;

export const QuoteEntry = z
  .object({
    quote_id: z.uuid().describe('Persisted quote id; pass it to delivery creation to lock the fee.'),
    valid_until: z.iso.datetime({ offset: true }).describe("End of the quote's validity."),
    company_id: z.uuid(),
    fee_aoa: z.number().int().describe('AOA centavos'),
    eta_minutes: z.number().int(),
    company_name: z.string().optional(),
    company_slug: z.string().optional(),
    company_logo_url: Uri.nullable().optional(),
    require_delivery_pin: z.boolean().optional(),
    livemode: z.boolean().describe('false: a test-mode quote, made with a test key from a simulated test courier.'),
  })
  .meta({ id: 'QuoteEntry', examples: [EXAMPLE_QUOTE] });
/** One element of the quote response (spec: "Quote entry"); the service always fills the fields the schema leaves optional. */
export type QuoteEntry = Required<z.infer<typeof QuoteEntry>>;

export const QuoteResponse = z
  .object({
    data: z.array(QuoteEntry).describe('One entry per courier company that answered with a price, cheapest first.'),
  })
  .meta({
    examples: [
      {
        data: [
          EXAMPLE_QUOTE,
          {
            ...EXAMPLE_QUOTE,
            quote_id: '5a7c9e1b-3d5f-4a6b-8c0d-2e4f6a8b0c1d',
            company_id: '1b3d5f7a-9c0e-4d2f-8a4b-6c8d0e2f4a6b',
            fee_aoa: 310_000,
            eta_minutes: 243,
            company_name: 'Benguela Cargas',
            company_slug: 'benguela-cargas',
          },
        ],
      },
    ],
  });
