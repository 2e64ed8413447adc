// The recipient's three forms on the tracking page (docs/recipients.md "The recipient page"): what each posts
// (application/x-www-form-urlencoded) and how it becomes a RecipientUpdate, or which fields are wrong and why.
// Pure: the page's routes (src/pages/recipient-routes.ts) and the unit tests use it.
import {
  MAX_RECIPIENT_INSTRUCTIONS,
  PREFERRED_WINDOW_DAYS,
  PREFERRED_WINDOW_SLOTS,
  type RecipientUpdate,
} from '../../shared/deliveries/vocabulary.js';

export const RECIPIENT_FORMS = ['instructions', 'location', 'window'] as const;
export type RecipientForm = (typeof RECIPIENT_FORMS)[number];

/** Why a field was refused (the page words each in pt-AO and English). */
export type FieldProblem = 'required' | 'too_long' | 'not_a_number' | 'out_of_range' | 'not_offered';

export type FormValues = Record<string, string>;

export type ParsedForm =
  { ok: true; update: RecipientUpdate } | { ok: false; errors: Record<string, FieldProblem>; values: FormValues };

const TIME_ZONE = 'Africa/Luanda';

/** A date (YYYY-MM-DD) in Luanda, `days` after `now`'s. */
export function luandaDate(now: Date, days = 0): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: TIME_ZONE,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(now);
  const date = new Date(`${parts}T12:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** The dates a preferred window may take: today and the days after it, PREFERRED_WINDOW_DAYS in all (Luanda). */
export const windowDates = (now: Date): string[] =>
  Array.from({ length: PREFERRED_WINDOW_DAYS }, (_, i) => luandaDate(now, i));

export const slotValue = (slot: { from: string; to: string }) => `${slot.from}-${slot.to}`;

/** A coordinate as typed: a decimal number with a point or a comma. */
function coordinate(raw: string, limit: number): number | FieldProblem {
  const text = raw.trim().replace(',', '.');
  if (!text) return 'required';
  if (!/^[-+]?\d{1,3}(\.\d{1,12})?$/.test(text)) return 'not_a_number';
  const value = Number(text);
  return Math.abs(value) <= limit ? value : 'out_of_range';
}

const field = (body: FormValues, name: string) => (typeof body[name] === 'string' ? body[name] : '');

function instructions(body: FormValues): ParsedForm {
  const text = field(body, 'instructions').replace(/\r\n/g, '\n').trim();
  const values = { instructions: field(body, 'instructions') };
  if (!text) return { ok: false, errors: { instructions: 'required' }, values };
  if ([...text].length > MAX_RECIPIENT_INSTRUCTIONS) return { ok: false, errors: { instructions: 'too_long' }, values };
  return { ok: true, update: { instructions: text } };
}

function location(body: FormValues): ParsedForm {
  const lat = coordinate(field(body, 'lat'), 90);
  const lng = coordinate(field(body, 'lng'), 180);
  const errors: Record<string, FieldProblem> = {};
  if (typeof lat !== 'number') errors.lat = lat;
  if (typeof lng !== 'number') errors.lng = lng;
  if (typeof lat !== 'number' || typeof lng !== 'number')
    return { ok: false, errors, values: { lat: field(body, 'lat'), lng: field(body, 'lng') } };
  return { ok: true, update: { destination_coordinates: { lat, lng } } };
}

function preferredWindow(body: FormValues, now: Date): ParsedForm {
  const date = field(body, 'date');
  const slot = PREFERRED_WINDOW_SLOTS.find((s) => slotValue(s) === field(body, 'slot'));
  const errors: Record<string, FieldProblem> = {};
  if (!date) errors.date = 'required';
  else if (!windowDates(now).includes(date)) errors.date = 'out_of_range';
  if (!field(body, 'slot')) errors.slot = 'required';
  else if (!slot) errors.slot = 'not_offered';
  if (!slot || Object.keys(errors).length > 0)
    return { ok: false, errors, values: { date, slot: field(body, 'slot') } };
  return { ok: true, update: { preferred_window: { date, from: slot.from, to: slot.to } } };
}

/** The recipient's answer to `form`, checked (dates against `now`, in Luanda). */
export function parseRecipientForm(form: RecipientForm, body: FormValues, now = new Date()): ParsedForm {
  if (form === 'instructions') return instructions(body);
  if (form === 'location') return location(body);
  return preferredWindow(body, now);
}
