// Browser-facing pages, no authentication:
//   GET /widget.js       the embeddable checkout widget (web/widget.ts, built by src/pages/widget-asset.ts)
//   GET /track/{id}      the recipients' tracking page (the Delivery's tracking_url), server-rendered HTML
// Both are outside the OpenAPI document (HTML and JavaScript, not API resources): docs/widget.md.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../platform/deps.js';
import { isFinal } from '../../shared/deliveries/vocabulary.js';
import { trackingPageData } from '../deliveries/tracking.js';
import { expectedDeliveryAt, toTracking } from '../deliveries/views.js';
import { negotiateLang } from './i18n.js';
import { PAGE_CSP, TRACKING_PAGE_CSP, renderNotFoundPage, renderTrackingPage } from './tracking-page.js';
import { loadWidget, type WidgetAsset } from './widget-asset.js';

const DAY = 86_400;

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

const routes: FastifyPluginAsync<AppDeps> = async (app, { pool }) => {
  // --- GET /widget.js ---------------------------------------------------------------------------
  let widget: Promise<WidgetAsset> | null = null;
  const currentWidget = () => {
    widget ??= loadWidget().catch((err) => {
      widget = null; // a failed build is retried on the next request
      throw err;
    });
    return widget;
  };

  app.get(
    '/widget.js',
    { config: { auth: 'none' }, schema: { hide: true } },
    async (request: FastifyRequest<{ Querystring: { v?: string } }>, reply: FastifyReply) => {
      const asset = await currentWidget();
      const versioned = typeof request.query.v === 'string' && `"${request.query.v}"` === asset.etag;
      reply
        .header('content-type', 'text/javascript; charset=utf-8')
        // Loaded by <script src> from merchants' origins: helmet's same-origin CORP would block it.
        .header('cross-origin-resource-policy', 'cross-origin')
        .header('access-control-allow-origin', '*')
        .header(
          'cache-control',
          versioned
            ? `public, max-age=${365 * DAY}, immutable`
            : `public, max-age=${DAY}, stale-while-revalidate=${7 * DAY}`,
        )
        .header('etag', asset.etag)
        .header('vary', 'Accept-Encoding');
      if (etagMatches(request.headers['if-none-match'], asset.etag)) return reply.code(304).send();
      if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) {
        return reply.header('content-encoding', 'gzip').send(asset.gzip);
      }
      return reply.send(asset.code);
    },
  );

  // --- GET /track/{id} ----------------------------------------------------------------------------
  app.get(
    '/track/:id',
    {
      config: {
        auth: 'none',
        // The global limiter skips non-/v1 paths; this page reads the database, so it is limited per client address.
        rateLimit: { allowList: () => false, keyGenerator: (request: FastifyRequest) => `track:${request.ip}` },
      },
      schema: { hide: true },
    },
    async (
      request: FastifyRequest<{ Params: { id: string }; Querystring: { lang?: string } }>,
      reply: FastifyReply,
    ) => {
      const lang = negotiateLang(request.query.lang, request.headers['accept-language']);
      const id = request.params.id;
      const selfPath = `/track/${encodeURIComponent(id)}`;
      reply
        .type('text/html; charset=utf-8')
        .header('content-language', lang === 'pt' ? 'pt-AO' : 'en')
        .header('vary', 'Accept-Language')
        .header('cache-control', 'no-cache')
        .header('content-security-policy', PAGE_CSP)
        .header('x-robots-tag', 'noindex, nofollow');
      const found = await trackingPageData(pool, id);
      if (!found) return reply.code(404).send(renderNotFoundPage(lang, selfPath));
      const { extras } = found;
      // The public tracking view, plus what the page alone shows: the shop and its help contact, the courier company,
      // the expected delivery time (GET /v1/deliveries/{id}/tracking keeps the spec's three fields).
      const expected = expectedDeliveryAt(found.delivery, found.events, extras.quoted_eta_minutes);
      const view = {
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
      return reply.header('content-security-policy', TRACKING_PAGE_CSP).send(renderTrackingPage(view, lang, selfPath));
    },
  );
};
export default routes;
