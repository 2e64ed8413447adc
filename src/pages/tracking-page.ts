// Server-rendered HTML of the recipients' tracking page (GET /track/{id}) and its 404 page.
// No JavaScript, no external resources, inline CSS only; readable on a small phone.
// Input is the public tracking view only (reference, status, event types and times): nothing else can leak.
// Every value that reaches the HTML goes through `esc`.
import { STRINGS, progressStep, type Lang } from './i18n.js';

export interface TrackingInput {
  reference: string;
  status: string;
  events: { event_type: string; occurred_at: string }[];
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const esc = (value: unknown): string => String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** The pages' Content-Security-Policy: no scripts, no external anything, inline styles only. */
export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

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
@media (prefers-color-scheme:dark){body{background:#121417;color:#eee}.card{background:#1c1f24;border-color:#333}.muted,dt,ol.timeline time,ol.steps li{color:#aaa}a{color:#7fb8ff}.status.ok{color:#5fd38a}.status.bad{color:#ff8a8a}}
`;

function layout(lang: Lang, title: string, heading: string, body: string, langHref: string): string {
  const t = STRINGS[lang];
  return `<!doctype html>
<html lang="${esc(t.htmlLang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${esc(title)}</title>
<style>${CSS}</style>
</head>
<body>
<main>
<header><h1>${esc(heading)}</h1><a href="${esc(langHref)}" lang="${esc(STRINGS[t.otherLang as Lang].htmlLang)}" hreflang="${esc(t.otherLang)}">${esc(t.otherLangLabel)}</a></header>
${body}
</main>
</body>
</html>
`;
}

export function renderTrackingPage(view: TrackingInput, lang: Lang, selfPath: string, now = new Date()): string {
  const t = STRINGS[lang];
  const status = t.statuses[view.status] ?? { label: view.status, hint: '' };
  const tone = view.status === 'delivered' ? ' ok' : ['failed', 'cancelled'].includes(view.status) ? ' bad' : '';
  const step = progressStep(view.status);
  const steps =
    step < 0
      ? ''
      : `<h2 id="progress">${esc(t.progress)}</h2>
<ol class="steps" aria-labelledby="progress">${t.steps
          .map((label, i) => `<li class="${i <= step ? 'done' : ''}"${i === step ? ' aria-current="step"' : ''}>${esc(label)}</li>`)
          .join('')}</ol>`;
  // Newest first: the recipient wants the latest news on top.
  const events = [...view.events].reverse();
  const timeline = events.length
    ? `<ol class="timeline">${events
        .map(
          (e) =>
            `<li><strong>${esc(t.events[e.event_type] ?? e.event_type)}</strong><time datetime="${esc(e.occurred_at)}">${esc(formatTime(e.occurred_at, t.locale))}</time></li>`,
        )
        .join('\n')}</ol>`
    : `<p>${esc(t.noEvents)}</p>`;
  const body = `<section class="card" aria-labelledby="status-heading">
<dl>
<dt>${esc(t.reference)}</dt><dd class="ref">${esc(view.reference)}</dd>
<dt id="status-heading">${esc(t.status)}</dt><dd><p class="status${tone}" data-status="${esc(view.status)}">${esc(status.label)}</p>${status.hint ? `<p class="muted">${esc(status.hint)}</p>` : ''}</dd>
</dl>
${steps}
</section>
<section class="card" aria-labelledby="timeline-heading">
<h2 id="timeline-heading">${esc(t.timeline)}</h2>
${timeline}
<p class="muted">${esc(t.timeZoneNote)} ${esc(t.updated)} ${esc(formatTime(now.toISOString(), t.locale))}. <a href="${esc(`${selfPath}?lang=${lang}`)}">${esc(t.refresh)}</a></p>
</section>`;
  return layout(lang, `${t.title} ${view.reference}`, t.heading, body, `${selfPath}?lang=${t.otherLang}`);
}

export function renderNotFoundPage(lang: Lang, selfPath: string): string {
  const t = STRINGS[lang];
  const body = `<section class="card" role="alert">
<p><strong>${esc(t.notFoundText)}</strong></p>
<p>${esc(t.notFoundHint)}</p>
</section>`;
  return layout(lang, t.notFoundTitle, t.notFoundTitle, body, `${selfPath}?lang=${t.otherLang}`);
}
