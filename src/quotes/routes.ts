// POST /v1/quotes (secret key) and POST /v1/widget/quotes (publishable key + allowed Origin).
// Both ask every active courier company of the tenant through the quote service (src/quotes/service.ts)
// and answer 200 {data: [Quote entry]}; every configured company failed: 502 upstream_unavailable;
// none configured: 503 no_courier_configured; configured but none can carry: 200 with an empty data.
// Unknown body fields are refused (422 unknown_field, before pricing, hashing and storage): docs/quotes.md.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createQuoteService, type QuoteAllResult } from './service.js';
import type { AppDeps } from '../platform/deps.js';
import { ApiError } from '../http/problem.js';
import { bothSurfaces } from '../http/surfaces.js';
import { scopeOf } from '../http/plugins/auth.js';
import { IdempotencyHeaders, problems } from '../http/schemas.js';
import { QuoteRequestBody, QuoteResponse } from './schemas.js';

function answer(result: QuoteAllResult) {
  if (result.configured === 0) {
    throw new ApiError(
      503,
      'no_courier_configured',
      'No courier company is configured for this account. Link at least one courier company first.',
    );
  }
  if (result.data.length === 0 && result.failed.length === result.configured) {
    throw new ApiError(502, 'upstream_unavailable', 'No courier company answered in time. Retry shortly.');
  }
  return { data: result.data };
}

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, deps) => {
  const quotes = createQuoteService({ config: deps.config, pool: deps.pool, log: app.log });
  const description =
    'Asks every courier company available to the account for a price, in parallel, and persists each answer as a quote. ' +
    'With a test key, the companies are the simulated test couriers (never a real one) and the quotes are test quotes (livemode false). ' +
    'A company that fails or does not answer within its timeout is left out; one that cannot carry the parcel (zones, weight, parcel type) too. ' +
    'A body field the contract does not name is 422 validation_failed (code unknown_field).';

  const merchant = {
    tags: ['quotes'],
    operationId: 'createQuotes',
    summary: 'Price a delivery across courier companies',
  };
  const widget = { operationId: 'createWidgetQuotes', summary: 'Price a delivery across courier companies (widget)' };
  for (const surface of bothSurfaces('/quotes', merchant, widget)) {
    app.post(
      surface.url,
      {
        config: { idempotent: true },
        schema: {
          ...surface.schema,
          description,
          headers: IdempotencyHeaders,
          body: QuoteRequestBody,
          response: { 200: QuoteResponse, ...problems(401, 409, 422, 429, 502, 503) },
        },
      },
      async (request) => answer(await quotes.quoteAll(scopeOf(request), request.body)),
    );
  }
};
export default routes;
