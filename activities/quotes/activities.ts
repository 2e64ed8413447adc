// The quote activity: the quote fan-out of src/quotes/service.ts, run by the worker so a workflow can re-quote.
import { createQuoteService, type QuoteServiceDeps } from '../../src/quotes/service.js';

export function createQuoteActivities(deps: QuoteServiceDeps) {
  const quotes = createQuoteService(deps);
  return {
    /** Quotes every active company of the tenant and persists each answer (src/quotes/service.ts). */
    quoteAll: quotes.quoteAll,
  };
}
