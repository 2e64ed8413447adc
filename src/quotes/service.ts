// The quote fan-out: asks every active courier company of the tenant for a price, in parallel, and persists each
// answer as a quote. The API's quote routes call it, and automatic failover's re-quote (src/deliveries/failover.ts).
//
// - Each company is bounded by its own timeout (courier_companies.timeout_ms, or deps.timeoutMs); the call waits
//   for the slowest company but never longer than that. A company that fails (timeout, network, 5xx, garbage) is
//   left out and logged; a company that cannot carry the parcel (zones, weight, parcel type) is left out silently.
// - Test mode (a scope with livemode false): the companies are the simulated test couriers, never a real one
//   (src/couriers/repository.ts tenantCouriers), and the quotes are test quotes, usable with a test key only.
// - Every returned entry is a row in `quotes`: tenant, mode, company, fee, eta, valid_until = now + min(QUOTE_VALIDITY_SECONDS,
//   upstream valid_for_seconds) on the database clock (delivery creation checks expiry on the same clock), the
//   normalised origin/destination/parcel and their hash (src/quotes/payload.ts).
// - The result says how many companies were configured and how many failed, so the caller decides 502/503.
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { Config } from '../platform/config.js';
import { adapterFor, CourierUnavailableError, type CourierQuote } from '../couriers/adapters/index.js';
import { tenantCouriers, type CourierRow } from '../couriers/repository.js';
import type { Pool } from '../platform/db.js';
import type { Scope } from '../platform/scope.js';
import { normalisePayload, payloadHash } from './payload.js';
import { insertQuotes } from './repository.js';
import { QuoteRequestBody, type QuoteEntry, type QuoteRequest } from './schemas.js';

export interface QuoteAllResult {
  /** Cheapest first (then fastest, then by name). */
  data: QuoteEntry[];
  /** Active companies linked to the tenant. 0: nothing configured (the API answers 503). */
  configured: number;
  /** Companies that answered "cannot carry". */
  cannot_carry: number;
  /** Companies that failed; when every configured one failed the API answers 502. */
  failed: { company_slug: string; error: string }[];
}

interface Logger {
  warn(obj: object, msg: string): void;
}

export interface QuoteServiceDeps {
  config: Pick<Config, 'quoteValiditySeconds' | 'logLevel'> & Partial<Pick<Config, 'courierTimeoutMs'>>;
  pool: Pool;
  log?: Logger;
}

type Outcome =
  | { kind: 'quoted'; courier: CourierRow; quote: CourierQuote }
  | { kind: 'cannot_carry' }
  | { kind: 'failed'; courier: CourierRow; error: string };

/** Belt and braces over the adapters' own timeouts: nothing may hold a quote request longer than timeout + this. */
const GRACE_MS = 250;

export function createQuoteService(deps: QuoteServiceDeps) {
  const { pool, config } = deps;
  const log: Logger = deps.log ?? pino({ level: config.logLevel, name: 'quotes' });

  async function ask(courier: CourierRow, request: QuoteRequest): Promise<Outcome> {
    const timeoutMs = courier.timeout_ms ?? config.courierTimeoutMs ?? 2000;
    let timer: NodeJS.Timeout | undefined;
    try {
      const quote = await Promise.race([
        adapterFor(courier, { timeoutMs }).quote(request),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new CourierUnavailableError(courier.slug, `no answer within ${timeoutMs} ms`)),
            timeoutMs + GRACE_MS,
          );
        }),
      ]);
      return quote ? { kind: 'quoted', courier, quote } : { kind: 'cannot_carry' };
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      log.warn({ courier: courier.slug, err: error }, 'courier quote failed; company left out');
      return { kind: 'failed', courier, error };
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    /** Quotes every active company of the scope and persists each answer. `input` is validated (and unknown fields stripped) here too. */
    async quoteAll(scope: Scope, input: QuoteRequest): Promise<QuoteAllResult> {
      const request = QuoteRequestBody.parse(input);
      const couriers = await tenantCouriers(pool, scope);
      if (couriers.length === 0) return { data: [], configured: 0, cannot_carry: 0, failed: [] };

      const outcomes = await Promise.all(couriers.map((c) => ask(c, request)));
      const quoted = outcomes.filter((o): o is Extract<Outcome, { kind: 'quoted' }> => o.kind === 'quoted');
      const failed = outcomes.filter((o): o is Extract<Outcome, { kind: 'failed' }> => o.kind === 'failed');
      const result: QuoteAllResult = {
        data: [],
        configured: couriers.length,
        cannot_carry: outcomes.filter((o) => o.kind === 'cannot_carry').length,
        failed: failed.map((f) => ({ company_slug: f.courier.slug, error: f.error })),
      };
      if (quoted.length === 0) return result;

      // One round trip for every entry (src/quotes/repository.ts).
      const ids = quoted.map(() => randomUUID());
      const validUntil = await insertQuotes(
        pool,
        scope,
        normalisePayload(request),
        payloadHash(request),
        quoted.map((q, i) => ({
          id: ids[i],
          companyId: q.courier.id,
          feeAoa: q.quote.fee_aoa,
          etaMinutes: q.quote.eta_minutes,
          validitySeconds: Math.min(config.quoteValiditySeconds, q.quote.valid_for_seconds ?? Infinity),
          upstreamRef: q.quote.upstream_ref ?? null,
        })),
      );
      result.data = quoted
        .map((q, i) => ({
          quote_id: ids[i],
          valid_until: validUntil.get(ids[i])!.toISOString(),
          company_id: q.courier.id,
          fee_aoa: q.quote.fee_aoa,
          eta_minutes: q.quote.eta_minutes,
          company_name: q.courier.name,
          company_slug: q.courier.slug,
          company_logo_url: q.courier.logo_url,
          require_delivery_pin: q.courier.capabilities?.require_delivery_pin ?? false,
          livemode: scope.livemode,
        }))
        .sort(
          (a, b) =>
            a.fee_aoa - b.fee_aoa || a.eta_minutes - b.eta_minutes || a.company_name.localeCompare(b.company_name),
        );
      return result;
    },
  };
}
