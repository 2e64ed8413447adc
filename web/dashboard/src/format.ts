// How the dashboard writes money, weight and time: AOA as `1 500,00 Kz` and weight in kg (the formatters the widget and
// the tracking page share, shared/format/units.ts), times in Luanda's zone (Africa/Luanda, UTC+1, no daylight saving)
// whatever the browser's.
import type { Lang } from './i18n';

export const TIME_ZONE = 'Africa/Luanda';
/** Luanda's offset, for turning a date typed in Luanda into an instant (Angola keeps no daylight saving). */
const LUANDA_OFFSET = '+01:00';

/** Money and weight as every surface writes them (shared/format/units.ts): `1 800,00 Kz`, `1,5 kg`. */
export { formatAoa, formatWeight, parseAoa, parseKg } from '../../../shared/format/units';

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(lang: Lang, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = lang + JSON.stringify(options);
  let f = formatters.get(key);
  if (!f)
    formatters.set(
      key,
      (f = new Intl.DateTimeFormat(lang === 'pt' ? 'pt-AO' : 'en-GB', { timeZone: TIME_ZONE, ...options })),
    );
  return f;
}

export const DATE_TIME: Intl.DateTimeFormatOptions = {
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
};

/** A date-time in Luanda: `23/11/2026, 10:15:04`. */
export function formatDateTime(lang: Lang, iso: string | null | undefined): string {
  if (!iso) return '—';
  return formatter(lang, DATE_TIME).format(new Date(iso));
}

/** The time of day in Luanda: `10:15:04`. */
export const formatTime = (lang: Lang, date: Date) =>
  formatter(lang, { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).format(date);

/** A `YYYY-MM-DD` typed in Luanda as the instant its day starts (or ends) there. */
export const luandaDayStart = (day: string) => `${day}T00:00:00.000${LUANDA_OFFSET}`;
export const luandaDayEnd = (day: string) => `${day}T23:59:59.999${LUANDA_OFFSET}`;
/** A datetime-local value (`YYYY-MM-DDTHH:MM`) typed in Luanda as an instant. */
export const luandaLocal = (local: string) => new Date(`${local}:00${LUANDA_OFFSET}`).toISOString();
