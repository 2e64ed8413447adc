// What the widget draws: the form (recipient and parcel), one option per quote, and the booked delivery. The element
// (element.ts) keeps the state and wires the events; these only build elements.
import { formatWeight } from '../../shared/format/units';
import { formatEta, formatFee, h } from './dom';
import { FROM_ATTR, type FieldName } from './fields';
import type { Attr } from './request';
import { staticWeightGrams } from './request';
import { PROVINCES, type Lang, type Strings } from './strings';
import type { Delivery, Quote } from './types';

export interface FormContext {
  attr: Attr;
  t: Strings;
  lang: Lang;
  /** What the shopper typed, kept across re-renders (a language change redraws the form). */
  values: Partial<Record<FieldName, string>>;
  /** Filled with the inputs drawn, by field. */
  inputs: Map<FieldName, HTMLInputElement>;
}

/** A labelled input, or nothing when a page field (named by a *-from attribute) supplies the value. */
function field(
  ctx: FormContext,
  name: FieldName,
  label: string,
  attrs: Record<string, string | boolean>,
): HTMLElement | null {
  const from = FROM_ATTR[name];
  if (from && ctx.attr(from)) return null;
  const id = `dw-${name}`;
  const input = h('input', { id, name, type: 'text', 'aria-describedby': `${id}-e`, ...attrs, 'data-f': name });
  input.value = ctx.values[name] ?? '';
  ctx.inputs.set(name, input);
  return h('div', {}, h('label', { for: id }, label), input, h('p', { class: 'fe', id: `${id}-e` }));
}

function fieldset(legend: string, children: (HTMLElement | null)[]): HTMLElement | null {
  const present = children.filter((c): c is HTMLElement => !!c);
  return present.length ? h('fieldset', {}, h('legend', {}, legend), ...present) : null;
}

function parcelView(ctx: FormContext): HTMLElement | null {
  const { t } = ctx;
  const staticWeight = staticWeightGrams(ctx.attr);
  if (staticWeight !== null) return h('p', {}, t.parcelSummary(formatWeight(staticWeight, t.locale)));
  return fieldset(t.parcel, [
    field(ctx, 'weight', t.weight, {
      inputmode: 'decimal',
      required: true,
      placeholder: ctx.lang === 'pt' ? '1,5' : '1.5',
    }),
    ctx.attr('parcel-description') ? null : field(ctx, 'description', t.description, {}),
  ]);
}

/** The form: its heading (the `heading` attribute's, none when empty), the fields, "get prices" and `regions`. */
export function formView(ctx: FormContext, regions: HTMLElement[]): HTMLFormElement {
  const { t } = ctx;
  // With no heading, the form keeps its name for screen readers.
  const headingText = (ctx.attr('heading') ?? t.title).trim();
  const form = h(
    'form',
    headingText ? { novalidate: true, 'aria-labelledby': 'dw-title' } : { novalidate: true, 'aria-label': t.title },
  );
  const recipient = fieldset(t.recipient, [
    field(ctx, 'name', t.name, { autocomplete: 'name', required: true }),
    field(ctx, 'phone', t.phone, { type: 'tel', autocomplete: 'tel', inputmode: 'tel', required: true }),
    field(ctx, 'address_line', t.addressLine, { autocomplete: 'address-line1', required: true }),
    field(ctx, 'city', t.city, { autocomplete: 'address-level2', required: true }),
    field(ctx, 'province', t.province, { autocomplete: 'address-level1', list: 'dw-provinces', required: true }),
  ]);
  const parcel = parcelView(ctx);
  form.append(
    headingText ? h('h2', { id: 'dw-title' }, headingText) : '',
    recipient ?? '',
    parcel ?? '',
    h('datalist', { id: 'dw-provinces' }, ...PROVINCES.map((p) => h('option', { value: p }))),
    h('button', { type: 'submit', part: 'button' }, t.getQuotes),
    ...regions,
  );
  return form;
}

export const companyName = (q: Quote) => q.company_name || q.company_slug || '—';

/** One quote as a radio option: the company's logo and name, the ETA, whether it asks for a PIN, and the fee. */
export function quoteOption(q: Quote, t: Strings, checked: boolean, onChange: (radio: HTMLInputElement) => void) {
  const radio = h('input', { type: 'radio', name: 'dw-quote', value: q.quote_id });
  radio.checked = checked;
  radio.addEventListener('change', () => onChange(radio));
  const logo =
    q.company_logo_url && /^https?:\/\//i.test(q.company_logo_url)
      ? h('img', { src: q.company_logo_url, alt: '', loading: 'lazy', referrerpolicy: 'no-referrer' })
      : null;
  logo?.addEventListener('error', () => logo.remove());
  return h(
    'label',
    { class: 'q' },
    radio,
    logo,
    h(
      'span',
      { class: 'n' },
      h('span', { class: 'cn' }, companyName(q)),
      h('small', {}, t.eta(formatEta(q.eta_minutes, t))),
      q.require_delivery_pin ? h('small', {}, t.pinNote) : null,
    ),
    h('span', { class: 'f' }, formatFee(q.fee_aoa)),
  );
}

/** The booked delivery: reference, courier, fee, PIN and tracking link; its heading takes the focus. */
export function doneView(d: Delivery, selected: Quote | null, t: Strings, onAgain: () => void): HTMLElement {
  const heading = h('h2', { id: 'dw-done', tabindex: '-1' }, t.doneTitle);
  const list = h('dl', {}, h('dt', {}, t.reference), h('dd', { 'data-v': 'reference' }, d.reference));
  if (selected) list.append(h('dt', {}, t.courier), h('dd', {}, companyName(selected)));
  const fee = d.quoted_fee_aoa ?? selected?.fee_aoa;
  if (typeof fee === 'number') list.append(h('dt', {}, t.fee), h('dd', {}, formatFee(fee)));
  if (d.delivery_pin)
    list.append(
      h('dt', {}, t.pin),
      h(
        'dd',
        { class: 'pin', 'data-v': 'pin' },
        d.delivery_pin,
        h('small', { style: 'display:block;font-size:.6em;letter-spacing:0;font-weight:400' }, t.pinHelp),
      ),
    );
  const again = h('button', { type: 'button', class: 's', part: 'button' }, t.again);
  again.addEventListener('click', onAgain);
  const link =
    d.tracking_url && /^https?:\/\//i.test(d.tracking_url)
      ? h(
          'a',
          { href: d.tracking_url, target: '_blank', rel: 'noopener noreferrer', part: 'link' },
          t.track,
          ' ',
          h('span', { style: 'font-size:.85em' }, t.newTab),
        )
      : null;
  queueMicrotask(() => heading.focus());
  return h('section', { 'aria-labelledby': 'dw-done' }, heading, list, h('div', { class: 'row' }, link, again));
}
