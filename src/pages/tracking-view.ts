// What the tracking page shows of a delivery (GET /track/{id}, and the recipient's forms' answers): the public
// tracking view plus the shop and its help contact, the courier company and the expected delivery time
// (GET /v1/deliveries/{id}/tracking keeps the spec's three fields). Never an address, contact, PIN or metadata.
import type { FastifyReply } from 'fastify';
import type { trackingPageData } from '../deliveries/tracking.js';
import { expectedDeliveryAt, toTracking } from '../deliveries/views.js';
import { isFinal } from '../../shared/deliveries/vocabulary.js';
import type { Lang } from './i18n.js';
import { PAGE_CSP, type TrackingPageInput } from './tracking-page.js';

export type TrackingPageData = NonNullable<Awaited<ReturnType<typeof trackingPageData>>>;

export function trackingView(found: TrackingPageData): TrackingPageInput {
  const { extras } = found;
  const expected = expectedDeliveryAt(found.delivery, found.events, extras.quoted_eta_minutes);
  return {
    ...toTracking(found.delivery, found.events),
    livemode: found.delivery.livemode,
    shop_name: extras.shop_name,
    courier_name: found.delivery.courier_name,
    expected_at: expected?.toISOString() ?? null,
    // The amount to have ready at the door, while the delivery is still on its way.
    cash_due_aoa:
      found.delivery.payment_method === 'cod' && !isFinal(found.delivery.status)
        ? found.delivery.cash_collect_aoa
        : null,
    help: { email: extras.help_email, phone: extras.help_phone, url: extras.help_url },
  };
}

/** The page's headers: HTML in the reader's language, never cached as is, never indexed. */
export function pageHeaders(reply: FastifyReply, lang: Lang): FastifyReply {
  return reply
    .type('text/html; charset=utf-8')
    .header('content-language', lang === 'pt' ? 'pt-AO' : 'en')
    .header('vary', 'Accept-Language')
    .header('cache-control', 'no-cache')
    .header('content-security-policy', PAGE_CSP)
    .header('x-robots-tag', 'noindex, nofollow');
}
