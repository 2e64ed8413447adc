// The recipient's forms on the tracking page (GET /track/{id}?r=<token>, docs/recipients.md "The recipient page"):
// delivery instructions, the location, and after a failed attempt a preferred window for the next try. Plain HTML
// forms that POST (application/x-www-form-urlencoded) to /track/{id}/{form} with the token in a hidden field; they
// work without JavaScript. One small script (allowed by its hash in RECIPIENT_PAGE_CSP) shows the "use my location"
// button and fills the coordinates from navigator.geolocation. Every value that reaches the HTML goes through `esc`.
import { createHash } from 'node:crypto';
import { MAX_RECIPIENT_INSTRUCTIONS, PREFERRED_WINDOW_SLOTS } from '../../shared/deliveries/vocabulary.js';
import { slotValue, windowDates, type FieldProblem, type FormValues, type RecipientForm } from '../recipients/forms.js';
import { STRINGS, type Lang } from './i18n.js';
import { RECIPIENT_STRINGS } from './recipient-i18n.js';
import { PAGE_CSP, esc } from './tracking-page.js';

export interface RecipientSectionInput {
  token: string;
  /** `/track/{id}` */
  selfPath: string;
  /** The preferred-window form: only after a failed attempt (back in transit). */
  windowOpen: boolean;
  /** The form just recorded (the redirect's `ok`), for the confirmation. */
  done?: RecipientForm | null;
  /** The form refused, its problems per field and what was typed. */
  failed?: { form: RecipientForm; errors: Record<string, FieldProblem>; values: FormValues } | null;
  /** A refusal of the whole answer: the delivery is over, or the service could not take it now. */
  notice?: 'over' | 'unavailable' | 'windowClosed' | 'forbidden' | null;
  /** false: the delivery is over (or the token is wrong): the notice alone, no forms. */
  formsOpen?: boolean;
  now?: Date;
}

/** Fills #lat and #lng from the browser's position; the button stays hidden without JavaScript or geolocation. */
export const RECIPIENT_SCRIPT = `(() => {
  const button = document.getElementById('locate');
  const status = document.getElementById('locate-status');
  if (!button || !navigator.geolocation) return;
  button.hidden = false;
  button.addEventListener('click', () => {
    status.textContent = button.dataset.locating;
    navigator.geolocation.getCurrentPosition(
      (pos) => {
        document.getElementById('lat').value = pos.coords.latitude.toFixed(6);
        document.getElementById('lng').value = pos.coords.longitude.toFixed(6);
        status.textContent = button.dataset.located;
      },
      () => { status.textContent = button.dataset.failed; },
      { enableHighAccuracy: true, timeout: 15000, maximumAge: 60000 },
    );
  });
})();`;

/** The recipient's page: PAGE_CSP with forms posting to this origin and the location script by its hash. */
export const RECIPIENT_PAGE_CSP = `${PAGE_CSP.replace("form-action 'none'", "form-action 'self'")}; script-src 'sha256-${createHash('sha256').update(RECIPIENT_SCRIPT).digest('base64')}'`;

export const RECIPIENT_CSS = `
form.recipient{margin:0}
fieldset{border:0;padding:0;margin:0}
legend{font-weight:700;font-size:1.1rem;padding:0;margin-bottom:.25rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
textarea,input[type=text],select{width:100%;font:inherit;padding:.5rem;border:1px solid #6b7280;border-radius:.35rem;background:#fff;color:#1a1a1a}
textarea{min-height:6rem}
button{font:inherit;font-weight:600;margin-top:.75rem;padding:.6rem 1rem;border-radius:.35rem;border:2px solid #0b5cad;background:#0b5cad;color:#fff;min-height:44px}
button.secondary{background:#fff;color:#0b5cad}
:is(button,textarea,input,select,a):focus-visible{outline:3px solid #0b5cad;outline-offset:2px}
.slots label{display:flex;gap:.5rem;align-items:center;font-weight:400;margin:.35rem 0}
.err{color:#a61b1b;font-weight:600;margin:.25rem 0}
[aria-invalid=true]{border-color:#a61b1b;border-width:2px}
.ok-msg{background:#e7f6ec;border:1px solid #0a6b2b;color:#0a4a1e;border-radius:.5rem;padding:.75rem 1rem}
.err-msg{background:#fdecec;border:1px solid #a61b1b;color:#7a1010;border-radius:.5rem;padding:.75rem 1rem}
@media (prefers-color-scheme:dark){textarea,input[type=text],select{background:#121417;color:#eee;border-color:#888}button.secondary{background:#1c1f24;color:#7fb8ff;border-color:#7fb8ff}.err{color:#ff8a8a}.ok-msg{background:#0f2a18;color:#bdf0cc}.err-msg{background:#3a1414;color:#ffd0d0}}
`;

function formatDate(date: string, lang: Lang): string {
  return new Intl.DateTimeFormat(STRINGS[lang].locale, {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    timeZone: 'UTC',
  }).format(new Date(`${date}T12:00:00Z`));
}

export function renderRecipientSection(input: RecipientSectionInput, lang: Lang): string {
  const t = RECIPIENT_STRINGS[lang];
  const failed = input.failed ?? null;
  const valueOf = (form: RecipientForm, name: string) => (failed?.form === form ? (failed.values[name] ?? '') : '');
  const problem = (form: RecipientForm, name: string) => (failed?.form === form ? failed.errors[name] : undefined);
  /** A field's error attributes and message (its id is `<name>-error`). */
  const invalid = (form: RecipientForm, name: string) =>
    problem(form, name) ? ` aria-invalid="true" aria-describedby="${name}-error"` : '';
  const message = (form: RecipientForm, name: string) => {
    const p = problem(form, name);
    return p ? `<p class="err" id="${name}-error">${esc(t.problems[p])}</p>` : '';
  };
  const hidden = `<input type="hidden" name="r" value="${esc(input.token)}"><input type="hidden" name="lang" value="${lang}">`;
  const action = (form: RecipientForm) => esc(`${input.selfPath}/${form}`);

  const notices = [
    input.done ? `<p class="ok-msg" role="status">${esc(t.done[input.done])}</p>` : '',
    failed ? `<p class="err-msg" role="alert">${esc(t.errorSummary)}</p>` : '',
    input.notice ? `<p class="err-msg" role="alert">${esc(t[input.notice])}</p>` : '',
  ].join('');

  const instructions = `<form class="recipient card" method="post" action="${action('instructions')}">${hidden}
<fieldset><legend>${esc(t.instructionsLegend)}</legend>
<label for="instructions">${esc(t.instructionsLabel)}</label>
<p class="muted" id="instructions-hint">${esc(t.instructionsHint(MAX_RECIPIENT_INSTRUCTIONS))}</p>
${message('instructions', 'instructions')}<textarea id="instructions" name="instructions" maxlength="${MAX_RECIPIENT_INSTRUCTIONS}" required${invalid('instructions', 'instructions') || ' aria-describedby="instructions-hint"'}>${esc(valueOf('instructions', 'instructions'))}</textarea>
<button type="submit">${esc(t.send.instructions)}</button></fieldset></form>`;

  const location = `<form class="recipient card" method="post" action="${action('location')}">${hidden}
<fieldset><legend>${esc(t.locationLegend)}</legend>
<p class="muted">${esc(t.locationLead)}</p>
<button type="button" class="secondary" id="locate" hidden data-locating="${esc(t.locating)}" data-located="${esc(t.located)}" data-failed="${esc(t.locationFailed)}">${esc(t.useLocation)}</button>
<p id="locate-status" class="muted" role="status"></p>
<label for="lat">${esc(t.lat)}</label>${message('location', 'lat')}<input type="text" id="lat" name="lat" inputmode="decimal" autocomplete="off" required value="${esc(valueOf('location', 'lat'))}"${invalid('location', 'lat')}>
<label for="lng">${esc(t.lng)}</label>${message('location', 'lng')}<input type="text" id="lng" name="lng" inputmode="decimal" autocomplete="off" required value="${esc(valueOf('location', 'lng'))}"${invalid('location', 'lng')}>
<button type="submit">${esc(t.send.location)}</button></fieldset></form>`;

  const chosenDate = valueOf('window', 'date');
  const chosenSlot = valueOf('window', 'slot');
  const dates = windowDates(input.now ?? new Date())
    .map((d) => `<option value="${d}"${d === chosenDate ? ' selected' : ''}>${esc(formatDate(d, lang))}</option>`)
    .join('');
  const slots = PREFERRED_WINDOW_SLOTS.map((s, i) => {
    const v = slotValue(s);
    return `<label><input type="radio" name="slot" value="${v}" required${v === chosenSlot || (!chosenSlot && i === 0) ? ' checked' : ''}> ${s.from}–${s.to}</label>`;
  }).join('');
  const window = input.windowOpen
    ? `<form class="recipient card" method="post" action="${action('window')}">${hidden}
<fieldset><legend>${esc(t.windowLegend)}</legend>
<p class="muted">${esc(t.windowLead)}</p>
<label for="date">${esc(t.date)}</label>${message('window', 'date')}<select id="date" name="date" required${invalid('window', 'date')}>${dates}</select>
<fieldset class="slots"${invalid('window', 'slot')}><legend>${esc(t.slot)}</legend>${message('window', 'slot')}${slots}</fieldset>
<button type="submit">${esc(t.send.window)}</button></fieldset></form>`
    : '';

  if (input.formsOpen === false) return `<section class="card" data-recipient="closed">${notices}</section>\n`;
  return `<section aria-labelledby="recipient-heading" data-recipient="true">
<h2 id="recipient-heading">${esc(t.heading)}</h2>
<p class="muted">${esc(t.lead)}</p>
${notices}${window}${instructions}${location}
</section>`;
}
