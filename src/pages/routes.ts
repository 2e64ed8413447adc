// Browser-facing pages, no authentication:
//   GET /widget.js       the embeddable checkout widget (web/widget.ts, built by src/pages/widget-asset.ts)
//   GET /track/{id}      the recipients' tracking page (the Delivery's tracking_url), server-rendered HTML; with the
//                        recipient link's `?r=<token>`, the recipient's forms too (recipient-routes.ts)
// Both are outside the OpenAPI document (HTML and JavaScript, not API resources): docs/widget.md.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../platform/deps.js';
import { trackingPageData } from '../deliveries/tracking.js';
import { recipientTokenMatches } from '../recipients/link.js';
import { RECIPIENT_FORMS } from '../recipients/forms.js';
import { negotiateLang } from './i18n.js';
import { registerRecipientRoutes, sendRecipientPage } from './recipient-routes.js';
import { TRACKING_PAGE_CSP, renderNotFoundPage, renderTrackingPage } from './tracking-page.js';
import { pageHeaders, trackingView } from './tracking-view.js';
import { loadWidget, type WidgetAsset } from './widget-asset.js';

const DAY = 86_400;

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

const routes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  const { pool } = deps;
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
      request: FastifyRequest<{ Params: { id: string }; Querystring: { lang?: string; r?: string; ok?: string } }>,
      reply: FastifyReply,
    ) => {
      const lang = negotiateLang(request.query.lang, request.headers['accept-language']);
      const id = request.params.id;
      const selfPath = `/track/${encodeURIComponent(id)}`;
      pageHeaders(reply, lang);
      const found = await trackingPageData(pool, id);
      if (!found) return reply.code(404).send(renderNotFoundPage(lang, selfPath));
      // The recipient link's token unlocks the recipient's forms (docs/recipients.md), nothing else.
      if (recipientTokenMatches(found.extras.recipient_token, request.query.r)) {
        const done = RECIPIENT_FORMS.find((f) => f === request.query.ok) ?? null;
        return sendRecipientPage(reply, found, lang, { done });
      }
      return reply
        .header('content-security-policy', TRACKING_PAGE_CSP)
        .send(renderTrackingPage(trackingView(found), lang, selfPath));
    },
  );

  // --- POST /track/{id}/{instructions|location|window}: the recipient's forms -------------------
  registerRecipientRoutes(app, deps);
};
export default routes;
