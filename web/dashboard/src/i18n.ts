// The dashboard's words: Portuguese of Angola first (the default, ./i18n/pt.ts), English second (./i18n/en.ts).
// `{name}` is filled in by t(). A key missing from English is a type error.
import { en, enEvents, enReasons, enStatuses } from './i18n/en';
import { pt, ptEvents, ptReasons, ptStatuses, type MessageKey } from './i18n/pt';

export type { MessageKey };
export type Lang = 'pt' | 'en';
export const LANGS: Lang[] = ['pt', 'en'];
const DICTS: Record<Lang, Record<MessageKey, string>> = { pt, en };
const STATUS: Record<Lang, Record<string, string>> = { pt: ptStatuses, en: enStatuses };
const EVENTS: Record<Lang, Record<string, string>> = { pt: ptEvents, en: enEvents };
const REASONS: Record<Lang, Record<string, string>> = { pt: ptReasons, en: enReasons };

export function translate(lang: Lang, key: MessageKey, params: Record<string, string | number> = {}): string {
  return DICTS[lang][key].replace(/\{(\w+)\}/g, (_, name: string) => String(params[name] ?? ''));
}

export const statusLabel = (lang: Lang, status: string) => STATUS[lang][status] ?? status;

/** `delivery.in_transit` reads as its status; the other event types have their own words. */
export const eventLabel = (lang: Lang, type: string) =>
  EVENTS[lang][type] ?? STATUS[lang][type.replace(/^delivery\./, '')] ?? type;

/** A stall, failure or attempt reason code in plain words; never the raw code (an unknown one reads as such). */
export const reasonLabel = (lang: Lang, code: string) => REASONS[lang][code] ?? translate(lang, 'reason_unknown');

/** A reason in the timeline: in words when it is a known code, else as recorded (a courier's own words, say). */
export const reasonText = (lang: Lang, reason: string) => REASONS[lang][reason] ?? reason;
