// POST /v1/quotes (secret key) and POST /v1/widget/quotes (publishable key + allowed Origin).
// Both ask every active courier company of the tenant through the quote activity (activities/quotes/activities.ts)
// and answer 200 {data: [Quote entry]}; every configured company failed: 502 upstream_unavailable;
// none configured: 503 no_courier_configured; configured but none can carry: 200 with an empty data.
// Unknown body fields are ignored (stripped before pricing, hashing and storage): docs/quotes.md.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createQuoteActivities, type QuoteAllResult } from '../../activities/quotes/activities.js';
import type { AppDeps } from '../app.js';
import { ApiError } from '../lib/problem.js';
import { tenantOf } from '../plugins/auth.js';
import { Address, IdempotencyHeaders, Parcel, problems } from '../schemas.js';

export const QuoteRequestBody = z
  .object({ origin: Address, destination: Address, parcel: Parcel })
  .meta({ id: 'QuoteRequest', description: 'Unknown fields are ignored.' });

export const QuoteEntry = z
  .object({
    quote_id: z.uuid().describe('Persisted quote id; pass it to delivery creation to lock the fee.'),
    valid_until: z.iso.datetime({ offset: true }).describe('End of the quote\'s validity.'),
    company_id: z.uuid(),
    fee_aoa: z.number().int().describe('AOA centavos'),
    eta_minutes: z.number().int(),
    company_name: z.string().optional(),
    company_slug: z.string().optional(),
    company_logo_url: z.string().nullable().optional(),
    require_delivery_pin: z.boolean().optional(),
  })
  .meta({ id: 'QuoteEntry' });

const QuoteResponse = z.object({ data: z.array(QuoteEntry).describe('One entry per courier company that answered with a price, cheapest first.') });

function answer(result: QuoteAllResult) {
  if (result.configured === 0) {
    throw new ApiError(503, 'no_courier_configured', 'No courier company is configured for this account. Link at least one courier company first.');
  }
  if (result.data.length === 0 && result.failed.length === result.configured) {
    throw new ApiError(502, 'upstream_unavailable', 'No courier company answered in time. Retry shortly.');
  }
  return { data: result.data };
}

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, deps) => {
  const quotes = createQuoteActivities({ config: deps.config, pool: deps.pool, log: app.log });
  const description =
    'Asks every courier company available to the account for a price, in parallel, and persists each answer as a quote. ' +
    'A company that fails or does not answer within its timeout is left out; one that cannot carry the parcel (zones, weight, parcel type) too. ' +
    'Unknown body fields are ignored.';

  app.post(
    '/v1/quotes',
    {
      config: { idempotent: true },
      schema: {
        tags: ['quotes'],
        operationId: 'createQuotes',
        summary: 'Price a delivery across courier companies',
        description,
        headers: IdempotencyHeaders,
        body: QuoteRequestBody,
        response: { 200: QuoteResponse, ...problems(401, 409, 422, 429, 502, 503) },
      },
    },
    async (request) => answer(await quotes.quoteAll(tenantOf(request), request.body)),
  );

  app.post(
    '/v1/widget/quotes',
    {
      config: { idempotent: true },
      schema: {
        tags: ['widget'],
        operationId: 'createWidgetQuotes',
        summary: 'Price a delivery across courier companies (widget)',
        description,
        security: [{ publishableKey: [] }],
        headers: IdempotencyHeaders,
        body: QuoteRequestBody,
        response: { 200: QuoteResponse, ...problems(401, 409, 422, 429, 502, 503) },
      },
    },
    async (request) => answer(await quotes.quoteAll(tenantOf(request), request.body)),
  );
};
export default routes;
