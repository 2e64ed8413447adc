// The recipient's forms (docs/recipients.md "The recipient page"): POST /track/{id}/instructions, /location and
// /window, application/x-www-form-urlencoded with the recipient link's token in `r`. Each answer goes to the delivery
// workflow (src/deliveries/recipient-update.ts); the page answers 303 back to /track/{id}?r=...&ok=<form> with a confirmation,
// or itself with what is wrong: 422 (fields kept), 403 (no or wrong token: no forms, nothing recorded), 404 (no such
// delivery), 409 (the delivery is over, or a window before any failed attempt), 503 (try again). Rate limited per
// client address (RECIPIENT_POSTS_PER_MINUTE).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../platform/deps.js';
import { trackingPageData } from '../deliveries/tracking.js';
import { recipientTokenMatches } from '../recipients/link.js';
import { RECIPIENT_FORMS, parseRecipientForm, type FormValues, type RecipientForm } from '../recipients/forms.js';
import { recordRecipientUpdate, recipientFormsOpen } from '../deliveries/recipient-update.js';
import { negotiateLang, type Lang } from './i18n.js';
import {
  RECIPIENT_CSS,
  RECIPIENT_PAGE_CSP,
  RECIPIENT_SCRIPT,
  renderRecipientSection,
  type RecipientSectionInput,
} from './recipient-page.js';
import { PAGE_CSP, renderNotFoundPage, renderTrackingPage } from './tracking-page.js';
import { pageHeaders, trackingView, type TrackingPageData } from './tracking-view.js';

export const RECIPIENT_POSTS_PER_MINUTE = 20;
/** A form's body: a few hundred characters at most. */
const FORM_BODY_LIMIT = 8 * 1024;

/** After a failed attempt, back in transit (not yet out again): the next try's window may be chosen. */
export function windowOpen(found: Pick<TrackingPageData, 'delivery' | 'events'>): boolean {
  if (found.delivery.status !== 'in_transit') return false;
  const moves = ['delivery.attempt_failed', 'delivery.in_transit', 'delivery.out_for_delivery'];
  const last = found.events.filter((e) => moves.includes(e.event_type) && e.payload?.ignored !== true).at(-1);
  return last?.event_type === 'delivery.attempt_failed';
}

/** The tracking page with the recipient's section (the forms, or the notice alone when the delivery is over). */
export function sendRecipientPage(
  reply: FastifyReply,
  found: TrackingPageData,
  lang: Lang,
  section: Partial<RecipientSectionInput>,
  status = 200,
): FastifyReply {
  const id = found.delivery.id;
  const token = found.extras.recipient_token;
  const open = recipientFormsOpen(found.delivery.status) && section.notice !== 'forbidden';
  const input: RecipientSectionInput = {
    token,
    selfPath: `/track/${id}`,
    windowOpen: windowOpen(found),
    ...section,
    ...(recipientFormsOpen(found.delivery.status) ? {} : { notice: section.notice ?? 'over' }),
    formsOpen: open,
  };
  const html = renderRecipientSection(input, lang);
  const langQuery = open ? `&r=${encodeURIComponent(token)}` : '';
  const page = renderTrackingPage(
    trackingView(found),
    lang,
    `/track/${id}`,
    new Date(),
    {
      html,
      css: RECIPIENT_CSS,
      script: open ? RECIPIENT_SCRIPT : '',
    },
    langQuery,
  );
  return reply
    .code(status)
    .header('content-security-policy', open ? RECIPIENT_PAGE_CSP : PAGE_CSP)
    .header('referrer-policy', 'no-referrer')
    .send(page);
}

export function registerRecipientRoutes(app: FastifyInstance, deps: AppDeps): void {
  // Only this plugin's routes (encapsulated) take HTML forms; the API stays JSON.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  app.post(
    '/track/:id/:form',
    {
      config: {
        auth: 'none',
        rateLimit: {
          max: RECIPIENT_POSTS_PER_MINUTE,
          allowList: () => false,
          keyGenerator: (request: FastifyRequest) => `recipient:${request.ip}`,
        },
      },
      schema: { hide: true },
    },
    async (request: FastifyRequest<{ Params: { id: string; form: string }; Body: unknown }>, reply: FastifyReply) => {
      const body: FormValues =
        request.body && typeof request.body === 'object' ? (request.body as FormValues) : ({} as FormValues);
      const lang = negotiateLang(body.lang, request.headers['accept-language']);
      pageHeaders(reply, lang);
      const form = RECIPIENT_FORMS.find((f) => f === request.params.form);
      const found = form ? await trackingPageData(deps.pool, request.params.id) : null;
      if (!form || !found)
        return reply.code(404).send(renderNotFoundPage(lang, `/track/${encodeURIComponent(request.params.id)}`));
      if (!recipientTokenMatches(found.extras.recipient_token, body.r))
        return sendRecipientPage(reply, found, lang, { notice: 'forbidden' }, 403);
      return answer(deps, reply, found, lang, form, body);
    },
  );
}

async function answer(
  deps: AppDeps,
  reply: FastifyReply,
  found: TrackingPageData,
  lang: Lang,
  form: RecipientForm,
  body: FormValues,
): Promise<FastifyReply> {
  if (!recipientFormsOpen(found.delivery.status)) return sendRecipientPage(reply, found, lang, { notice: 'over' }, 409);
  if (form === 'window' && !windowOpen(found))
    return sendRecipientPage(reply, found, lang, { notice: 'windowClosed' }, 409);
  const parsed = parseRecipientForm(form, body);
  if (!parsed.ok) return sendRecipientPage(reply, found, lang, { failed: { form, ...parsed } }, 422);
  const outcome = await recordRecipientUpdate(deps, found.delivery, parsed.update);
  if (outcome === 'over') return sendRecipientPage(reply, found, lang, { notice: 'over' }, 409);
  if (outcome === 'unavailable') return sendRecipientPage(reply, found, lang, { notice: 'unavailable' }, 503);
  const token = encodeURIComponent(found.extras.recipient_token);
  return reply.code(303).header('location', `/track/${found.delivery.id}?r=${token}&lang=${lang}&ok=${form}`).send();
}
