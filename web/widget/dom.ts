// The few DOM helpers the widget needs: an element builder (every text becomes a text node, nothing is parsed as
// HTML), a selector match that survives a bad selector, and the shopper-facing number formats.
import { formatAoa } from '../../shared/format/units.js';
import type { Strings } from './strings.js';

type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | boolean | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) if (child) el.append(child);
  return el;
}

export function safeMatches(el: Element, selector: string): boolean {
  try {
    return el.matches(selector);
  } catch {
    return false;
  }
}

/** A fee as every surface writes money (shared/format/units.ts): `1 800,00 Kz`. */
export const formatFee = (centavos: number): string => formatAoa(centavos);

export function formatEta(minutes: number, t: Strings): string {
  if (minutes < 60) return `${minutes} ${t.dur.min}`;
  if (minutes < 1440) {
    const hours = Math.floor(minutes / 60);
    const rest = minutes % 60;
    return rest ? `${hours} ${t.dur.h} ${rest} ${t.dur.min}` : `${hours} ${t.dur.h}`;
  }
  const days = Math.round(minutes / 1440);
  return `${days} ${days === 1 ? t.dur.day : t.dur.days}`;
}
