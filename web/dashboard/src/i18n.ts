// The dashboard's words: Portuguese of Angola first (the default, ./i18n/pt.ts), English second (./i18n/en.ts); the
// service's vocabularies (statuses, event types, reasons, sources: ./i18n/vocabulary.ts) and the API's problems
// (./i18n/errors.ts) in both. `{name}` is filled in by t(). A key missing from English is a type error, and so is a
// status, event type, reason, source or error code without its words. Nothing here ever shows a raw code: an unknown
// one reads as "unknown" in words (a newer API than this dashboard).
import { fieldErrorWords, problemWords } from './i18n/errors.js';
import { en } from './i18n/en.js';
import { pt, type MessageKey } from './i18n/pt.js';
import { EVENT_WORDS, REASON_WORDS, SOURCE_WORDS, STATUS_WORDS } from './i18n/vocabulary.js';

export type { MessageKey };
export type Lang = 'pt' | 'en';
export const LANGS: Lang[] = ['pt', 'en'];
const DICTS: Record<Lang, Record<MessageKey, string>> = { pt, en };

export function translate(lang: Lang, key: MessageKey, params: Record<string, string | number> = {}): string {
  return DICTS[lang][key].replace(/\{(\w+)\}/g, (_, name: string) => String(params[name] ?? ''));
}

/** A value of a table, or undefined (never a key of Object.prototype). */
const lookup = (table: Record<string, string>, key: string) => (Object.hasOwn(table, key) ? table[key] : undefined);

export const statusLabel = (lang: Lang, status: string) =>
  lookup(STATUS_WORDS[lang], status) ?? translate(lang, 'status_unknown');

export const eventLabel = (lang: Lang, type: string) =>
  lookup(EVENT_WORDS[lang], type) ?? translate(lang, 'event_unknown');

/** Who recorded an event, in words (`fleet_webhook`: the courier). */
export const sourceLabel = (lang: Lang, source: string) =>
  lookup(SOURCE_WORDS[lang], source) ?? translate(lang, 'source_unknown');

/** A code as the API writes them (`courier_rejected`, `not_allowed_from_in_transit`): never shown as it is. */
const CODE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const NOT_ALLOWED_FROM = /^not_allowed_from_([a-z_]+)$/;

/** A stall, failure or attempt reason code in plain words; never the raw code (an unknown one reads as such). */
export function reasonLabel(lang: Lang, code: string): string {
  const known = lookup(REASON_WORDS[lang], code);
  if (known) return known;
  const from = NOT_ALLOWED_FROM.exec(code);
  if (from)
    return translate(lang, 'reason_not_allowed_from', { status: statusLabel(lang, from[1]).toLocaleLowerCase() });
  return translate(lang, 'reason_unknown');
}

/**
 * A reason in the timeline: in words when it is a code (known or not), else as recorded: a merchant's own words when
 * it marked the delivery failed, a courier's.
 */
export const reasonText = (lang: Lang, reason: string) =>
  CODE.test(reason) || lookup(REASON_WORDS[lang], reason) ? reasonLabel(lang, reason) : reason;

/** The label of a field a problem points at (`/parcel/weight_grams`, parameter `email`), by its last name. */
const FIELD_LABELS: Record<string, MessageKey> = {
  address_line: 'address_line',
  city: 'city',
  province: 'province',
  name: 'contact_name',
  phone: 'contact_phone',
  weight_grams: 'weight',
  description: 'description',
  declared_value_aoa: 'declared_value',
  cash_collect_aoa: 'cash_collect',
  payment_method: 'payment_method',
  quote_id: 'quotes_title',
  company_id: 'courier',
  url: 'url',
  events: 'events',
  email: 'email',
  password: 'password',
  role: 'role',
  allowed_origins: 'allowed_origins',
  max_delivery_attempts: 'max_delivery_attempts',
  auto_redispatch: 'auto_redispatch',
  max_fee_increase_aoa: 'max_fee_increase_kz',
  max_redispatches: 'max_redispatches',
  assign_timeout_minutes: 'assign_timeout_minutes',
  reason: 'cod_dispute_reason',
  search: 'search',
  status: 'status',
  recipient_phone: 'recipient_phone',
  since: 'replay_since',
  until: 'replay_until',
  sms_enabled: 'sms_enabled',
  language: 'sms_language',
  sender_id: 'sms_sender_id',
  display_name: 'shop_display_name',
  help_phone: 'shop_help_phone',
  help_email: 'shop_help_email',
  help_url: 'shop_help_url',
  widget_payment_methods: 'widget_payments',
  widget_cod_amount_aoa: 'widget_cod_amount_kz',
};
/** The part of the body a pointer starts with, said before the field (`Destino · Cidade`). */
const GROUP_LABELS: Record<string, MessageKey> = {
  origin: 'origin',
  destination: 'destination',
  parcel: 'parcel',
};

export interface ProblemLike {
  status: number;
  error?: string | null;
  errors?: Array<{ pointer?: string; parameter?: string; code: string }> | null;
}

/**
 * A problem+json answer in the reader's language: the sentence of its `error` code (a generic one by HTTP status for
 * a code this dashboard does not know; never the API's English `detail`), and each field error as the form's field
 * label with what is wrong with it.
 */
export function describeProblem(lang: Lang, problem: ProblemLike) {
  const sentence =
    (problem.error ? problemWords(lang, problem.error) : null) ??
    translate(lang, problem.status >= 500 ? 'problem_unknown_server' : 'problem_unknown');
  const fields = (problem.errors ?? []).map((e) => {
    const names = (e.pointer ?? e.parameter ?? '').split('/').filter((n) => n && !/^\d+$/.test(n));
    const last = names.at(-1);
    const field = last && Object.hasOwn(FIELD_LABELS, last) ? translate(lang, FIELD_LABELS[last]) : null;
    const group =
      names.length > 1 && Object.hasOwn(GROUP_LABELS, names[0]) ? translate(lang, GROUP_LABELS[names[0]]) : null;
    return {
      pointer: e.pointer ?? e.parameter ?? '',
      field: [group, field ?? translate(lang, 'field_unknown')].filter(Boolean).join(' · '),
      message: fieldErrorWords(lang, e.code) ?? translate(lang, 'field_invalid'),
    };
  });
  return { sentence, fields };
}
