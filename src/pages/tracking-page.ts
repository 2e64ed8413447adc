// Server-rendered HTML of the recipients' tracking page (GET /track/{id}) and its 404 page.
// No external resources, inline CSS only; readable on a small phone. It works without JavaScript (a <noscript>
// refresh keeps it current); with it, one small inline script (allowed by its hash in the page's CSP) reloads the
// page's content every LIVE_REFRESH_SECONDS while the page is visible and announces a status change.
// Input: the public tracking view (reference, status, event types and times) plus the shop's name and help contact,
// the courier company's name and the expected delivery time. No PIN, address, contact, payload or courier reference.
// Every value that reaches the HTML goes through `esc`.
import { createHash } from 'node:crypto';
import { formatAoa } from '../../shared/format/units.js';
import { STRINGS, progressStep, type Lang } from './i18n.js';

export interface TrackingInput {
  reference: string;
  status: string;
  events: { event_type: string; occurred_at: string }[];
}

/** What the page shows beyond the public tracking view. */
export interface TrackingPageInput extends TrackingInput {
  /** false: a test delivery (test mode); the page says so in a banner at the top. */
  livemode: boolean;
  shop_name: string;
  courier_name: string | null;
  /** ISO time; null when the delivery is over or nothing says. */
  expected_at: string | null;
  /** Cash on delivery: the centavos the recipient pays the courier at the door, while it is still to pay; else null. */
  cash_due_aoa?: number | null;
  help: { email: string | null; phone: string | null; url: string | null };
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const esc = (value: unknown): string => String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** The pages' Content-Security-Policy: no scripts, no external anything, inline styles only. */
export const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** How often an open tracking page reloads its content (with JavaScript; without, the <noscript> refresh: twice that). */
export const LIVE_REFRESH_SECONDS = 10;

/**
 * The tracking page's one script: every LIVE_REFRESH_SECONDS while the page is visible (and at once when it becomes
 * visible again) it fetches the page and swaps in its <main>, unless the reader's focus is inside it; a changed
 * status is read out through the polite live region #live.
 */
const LIVE_SCRIPT = `(() => {
  const live = document.getElementById('live');
  const statusOf = (root) => root.querySelector('[data-status]')?.getAttribute('data-status');
  let status = statusOf(document);
  const update = async () => {
    if (document.hidden) return;
    const main = document.querySelector('main');
    if (!main || (main.contains(document.activeElement) && document.activeElement !== document.body)) return;
    try {
      const res = await fetch(location.href, { headers: { accept: 'text/html' }, cache: 'no-store' });
      if (!res.ok) return;
      const next = new DOMParser().parseFromString(await res.text(), 'text/html');
      const fresh = next.querySelector('main');
      if (!fresh) return;
      main.replaceWith(document.importNode(fresh, true));
      document.title = next.title;
      const now = statusOf(document);
      if (now !== status) {
        status = now;
        live.textContent = document.querySelector('[data-status]')?.textContent ?? '';
      }
    } catch {
      /* offline for a moment: the next round tries again */
    }
  };
  setInterval(update, ${LIVE_REFRESH_SECONDS * 1000});
  document.addEventListener('visibilitychange', update);
})();`;

/** The tracking page's CSP: PAGE_CSP plus its own script (by hash) and fetching itself. */
export const TRACKING_PAGE_CSP = `${PAGE_CSP}; script-src 'sha256-${createHash('sha256').update(LIVE_SCRIPT).digest('base64')}'; connect-src 'self'`;

const TIME_ZONE = 'Africa/Luanda';

function formatTime(iso: string, locale: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: TIME_ZONE }).format(date);
}

const CSS = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f5f6f8}
main{max-width:40rem;margin:0 auto;padding:1rem}
header{display:flex;justify-content:space-between;align-items:baseline;gap:1rem;flex-wrap:wrap}
h1{font-size:1.4rem;margin:.5rem 0}
h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
.card>h2:first-child{margin-top:0}
a{color:#0b5cad}
a:focus-visible{outline:3px solid #0b5cad;outline-offset:2px}
.card{background:#fff;border:1px solid #d9dce1;border-radius:.5rem;padding:1rem;margin:.75rem 0}
.ref{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:1.1rem;word-break:break-all}
.status{font-size:1.5rem;font-weight:700;margin:.25rem 0}
.status.ok{color:#0a6b2b}.status.bad{color:#a61b1b}
.muted{color:#555;font-size:.9rem}
dl{margin:0}dt{font-size:.85rem;color:#555}dd{margin:0 0 .75rem}
ol.steps{list-style:none;padding:0;margin:.5rem 0 0;display:flex;gap:.25rem}
ol.steps li{flex:1;font-size:.75rem;text-align:center;color:#555;border-top:.35rem solid #d9dce1;padding-top:.25rem}
ol.steps li.done{border-color:#0a6b2b;color:#1a1a1a}
ol.steps li[aria-current]{font-weight:700}
ol.timeline{list-style:none;padding:0;margin:0}
ol.timeline li{border-left:3px solid #d9dce1;padding:0 0 1rem 1rem;position:relative}
ol.timeline li:first-child{border-color:#0b5cad}
ol.timeline li::before{content:"";position:absolute;left:-.45rem;top:.35rem;width:.6rem;height:.6rem;border-radius:50%;background:#0b5cad}
ol.timeline time{display:block;color:#555;font-size:.9rem}
.help a{display:inline-block;padding:.35rem 0}
.test-banner{background:#fff4d6;border:2px dashed #a86b00;color:#5c3b00;border-radius:.5rem;padding:.75rem 1rem;margin:.75rem 0}
.test-banner strong{display:block;font-size:1.1rem;text-transform:uppercase;letter-spacing:.05em}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
@media (prefers-color-scheme:dark){.test-banner{background:#3a2a00;color:#ffe2a3;border-color:#e0a000}body{background:#121417;color:#eee}.card{background:#1c1f24;border-color:#333}.muted,dt,ol.timeline time,ol.steps li{color:#aaa}ol.steps li{border-color:#444}ol.steps li.done{border-color:#5fd38a;color:#eee}a{color:#7fb8ff}.status.ok{color:#5fd38a}.status.bad{color:#ff8a8a}}
`;

/** A section added to the page (the recipient's forms): its HTML after the status, its CSS, its script instead of the live one. */
export interface PageAddition {
  html: string;
  css: string;
  script: string;
}

function layout(
  lang: Lang,
  title: string,
  heading: string,
  body: string,
  langHref: string,
  live = false,
  addition: PageAddition | null = null,
): string {
  const t = STRINGS[lang];
  const script = addition ? addition.script : live ? LIVE_SCRIPT : null;
  return `<!doctype html>
<html lang="${esc(t.htmlLang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${esc(title)}</title>
<style>${CSS}${addition?.css ?? ''}</style>${live ? `\n<noscript><meta http-equiv="refresh" content="${LIVE_REFRESH_SECONDS * 2}"></noscript>` : ''}
</head>
<body>
<main>
<header><h1>${esc(heading)}</h1><a href="${esc(langHref)}" lang="${esc(STRINGS[t.otherLang as Lang].htmlLang)}" hreflang="${esc(t.otherLang)}">${esc(t.otherLangLabel)}</a></header>
${body}
</main>${live ? `\n<p id="live" class="sr" aria-live="polite"></p>` : ''}${script ? `\n<script>${script}</script>` : ''}
</body>
</html>
`;
}

/** The shop's help contact: links for what it configured (`admin tenant settings`), else a plain sentence. */
function helpSection(view: TrackingPageInput, lang: Lang): string {
  const t = STRINGS[lang];
  const { email, phone, url } = view.help;
  const links = [
    email ? `<li>${esc(t.email)}: <a href="mailto:${esc(email)}">${esc(email)}</a></li>` : '',
    phone ? `<li>${esc(t.phone)}: <a href="tel:${esc(phone.replace(/[^\d+]/g, ''))}">${esc(phone)}</a></li>` : '',
    url && /^https?:\/\//i.test(url)
      ? `<li><a href="${esc(url)}" rel="noopener noreferrer">${esc(t.site)}</a></li>`
      : '',
  ].join('');
  return `<section class="card help" aria-labelledby="help-heading">
<h2 id="help-heading">${esc(t.help)}</h2>
${links ? `<p>${esc(t.helpLead(view.shop_name))}</p><ul>${links}</ul>` : `<p>${esc(t.helpNone)}</p>`}
</section>`;
}

/** A failed delivery going back to the shop (its return to sender started, or delivered) says so plainly. */
function returnHint(view: TrackingPageInput, t: (typeof STRINGS)[Lang]): { label: string; hint: string } | null {
  if (view.status !== 'failed') return null;
  const seen = (type: string) => view.events.some((e) => e.event_type === type);
  if (!seen('delivery.return_started')) return null;
  return { label: t.statuses.failed.label, hint: seen('delivery.returned') ? t.returned : t.returning };
}

/**
 * The page; with `addition` (the recipient's forms) it neither reloads itself nor refreshes (what the recipient types
 * must stay), and its language link keeps the recipient's token (`langQuery`).
 */
export function renderTrackingPage(
  view: TrackingPageInput,
  lang: Lang,
  selfPath: string,
  now = new Date(),
  addition: PageAddition | null = null,
  langQuery = '',
): string {
  const t = STRINGS[lang];
  const status = returnHint(view, t) ?? t.statuses[view.status] ?? { label: view.status, hint: '' };
  const tone = view.status === 'delivered' ? ' ok' : ['failed', 'cancelled'].includes(view.status) ? ' bad' : '';
  const step = progressStep(view.status);
  const steps =
    step < 0
      ? ''
      : `<h2 id="progress">${esc(t.progress)}</h2>
<ol class="steps" aria-labelledby="progress">${t.steps
          .map(
            (label, i) =>
              `<li class="${i <= step ? 'done' : ''}"${i === step ? ' aria-current="step"' : ''}>${esc(label)}</li>`,
          )
          .join('')}</ol>`;
  // Newest first: the recipient wants the latest news on top.
  const events = [...view.events].reverse();
  const timeline = events.length
    ? `<ol class="timeline">${events
        .map(
          (e) =>
            `<li><strong>${esc((t.events as Record<string, string>)[e.event_type] ?? e.event_type)}</strong><time datetime="${esc(e.occurred_at)}">${esc(formatTime(e.occurred_at, t.locale))}</time></li>`,
        )
        .join('\n')}</ol>`
    : `<p>${esc(t.noEvents)}</p>`;
  const detail = (label: string, value: string | null, attrs = '') =>
    value ? `<dt>${esc(label)}</dt><dd${attrs}>${esc(value)}</dd>` : '';
  const banner = view.livemode
    ? ''
    : `<section class="test-banner" role="note" data-testmode="true"><strong>${esc(t.testBanner)}</strong>${esc(t.testBannerHint)}</section>\n`;
  const body = `${banner}<section class="card" aria-labelledby="status-heading">
<dl>
${detail(t.shop, view.shop_name, ' data-v="shop"')}
<dt>${esc(t.reference)}</dt><dd class="ref">${esc(view.reference)}</dd>
<dt id="status-heading">${esc(t.status)}</dt><dd><p class="status${tone}" data-status="${esc(view.status)}">${esc(status.label)}</p>${status.hint ? `<p class="muted">${esc(status.hint)}</p>` : ''}</dd>
${detail(t.courier, view.courier_name, ' data-v="courier"')}
${typeof view.cash_due_aoa === 'number' ? detail(t.cashDue, formatAoa(view.cash_due_aoa), ' data-v="cash-due"') : ''}
${view.expected_at ? `<dt>${esc(t.expected)}</dt><dd data-v="expected"><time datetime="${esc(view.expected_at)}">${esc(formatTime(view.expected_at, t.locale))}</time></dd>` : ''}
</dl>
${steps}
</section>
${addition?.html ?? ''}<section class="card" aria-labelledby="timeline-heading">
<h2 id="timeline-heading">${esc(t.timeline)}</h2>
${timeline}
<p class="muted">${esc(t.timeZoneNote)} ${esc(t.updated)} ${esc(formatTime(now.toISOString(), t.locale))}.${addition ? '' : ` ${esc(t.live)}`} <a href="${esc(`${selfPath}?lang=${lang}${langQuery}`)}">${esc(t.refresh)}</a></p>
</section>
${helpSection(view, lang)}`;
  return layout(
    lang,
    `${t.title} ${view.reference}`,
    t.heading,
    body,
    `${selfPath}?lang=${t.otherLang}${langQuery}`,
    !addition,
    addition,
  );
}

export function renderNotFoundPage(lang: Lang, selfPath: string): string {
  const t = STRINGS[lang];
  const body = `<section class="card" role="alert">
<p><strong>${esc(t.notFoundText)}</strong></p>
<p>${esc(t.notFoundHint)}</p>
</section>`;
  return layout(lang, t.notFoundTitle, t.notFoundTitle, body, `${selfPath}?lang=${t.otherLang}`);
}
