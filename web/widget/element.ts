// The <delivery-widget> element: its state (what was typed, the quotes, the chosen one, the booked delivery), the
// steps (get prices, choose, book) and where their messages and errors show. Drawing is views.ts's, the requests are
// request.ts's, talking to the API is api.ts's.
import { RETRYABLE_CODES, SCRIPT_ORIGIN, STALE_QUOTE_CODES, WidgetApi, WidgetError, newIdempotencyKey } from './api';
import { formatFee, h, safeMatches } from './dom';
import { deliveryCreatedDetail, errorDetail, quoteSelectedDetail } from './events';
import { FIELDS, FROM_ATTR, POINTER_FIELD, pageValue, type FieldName } from './fields';
import { bookingRequest, missingSettings, readOrigin, readParcel, readShopperFields } from './request';
import { T, type Lang, type Strings } from './strings';
import { CSS } from './styles';
import type { Delivery, Quote, QuoteBody, QuoteList } from './types';
import { companyName, doneView, formView, quoteOption } from './views';

type Step = 'quote' | 'book';

export class DeliveryWidget extends HTMLElement {
  static observedAttributes = ['lang', 'heading', 'mode'];

  private root: ShadowRoot;
  private values: Partial<Record<FieldName, string>> = {};
  private quotes: Quote[] = [];
  private quoted: QuoteBody | null = null;
  private selected: Quote | null = null;
  private delivery: Delivery | null = null;
  private busy = false;
  private idempotencyKeys = new Map<string, string>();
  private api = new WidgetApi(() => ({
    base: this.apiBase,
    key: (this.getAttribute('publishable-key') ?? '').trim(),
    t: this.t,
  }));
  private statusEl!: HTMLElement;
  /** Errors of the step the shopper is at: under "get prices" (and the form), or under "book" once options show. */
  private errorEl!: HTMLElement;
  private bookErrorEl: HTMLElement | null = null;
  private quotesEl!: HTMLElement;
  private inputs = new Map<FieldName, HTMLInputElement>();
  private attr = (name: string) => this.getAttribute(name);
  private onPageInput = (event: Event) => {
    const target = event.target as Element | null;
    if (!target || !this.quoted || typeof target.matches !== 'function') return;
    const selectors = Object.values(FROM_ATTR)
      .map((a) => this.getAttribute(a))
      .filter((s): s is string => !!s);
    if (selectors.some((s) => safeMatches(target, s))) this.invalidateQuotes();
  };

  constructor() {
    super();
    this.root = this.attachShadow({ mode: 'open' });
    if (
      'adoptedStyleSheets' in this.root &&
      typeof CSSStyleSheet === 'function' &&
      'replaceSync' in CSSStyleSheet.prototype
    ) {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS);
      this.root.adoptedStyleSheets = [sheet];
    } else {
      (this.root as ShadowRoot).append(h('style', {}, CSS));
    }
  }

  connectedCallback() {
    document.addEventListener('input', this.onPageInput, true);
    document.addEventListener('change', this.onPageInput, true);
    this.render();
  }

  disconnectedCallback() {
    document.removeEventListener('input', this.onPageInput, true);
    document.removeEventListener('change', this.onPageInput, true);
  }

  attributeChangedCallback() {
    if (this.isConnected) this.render();
  }

  private get language(): Lang {
    return (this.getAttribute('lang') ?? '').toLowerCase().startsWith('en') ? 'en' : 'pt';
  }

  private get t(): Strings {
    return T[this.language];
  }

  /** `select`: the shopper only picks a courier, and the shop books later from its server (docs/widget.md). */
  private get selectOnly(): boolean {
    return this.getAttribute('mode') === 'select';
  }

  private get apiBase(): string {
    return (this.getAttribute('api-base') || SCRIPT_ORIGIN).replace(/\/+$/, '');
  }

  // --- rendering ---------------------------------------------------------------------------------

  private render() {
    const t = this.t;
    for (const child of Array.from(this.root.childNodes)) if (!(child instanceof HTMLStyleElement)) child.remove();
    this.inputs.clear();
    this.statusEl = h('p', { class: 'st', role: 'status', 'aria-live': 'polite' });
    this.errorEl = h('div', { class: 'er', role: 'alert' });
    const wrap = h('div', { class: 'w', lang: t.locale === 'pt-AO' ? 'pt-AO' : 'en' });
    // A test key (pk_test_): a badge in words, not only colour, read out first (docs/widget.md "Test mode").
    if ((this.getAttribute('publishable-key') ?? '').trim().startsWith('pk_test_')) {
      wrap.append(h('p', { class: 'tm', role: 'note' }, h('strong', { class: 'tb' }, t.testBadge), ` ${t.testNote}`));
    }
    if (this.delivery) {
      wrap.append(
        doneView(this.delivery, this.selected, t, () => this.startOver()),
        this.statusEl,
        this.errorEl,
      );
      this.root.append(wrap);
      return;
    }
    this.quotesEl = h('div');
    const ctx = { attr: this.attr, t, lang: this.language, values: this.values, inputs: this.inputs };
    const form = formView(ctx, [this.statusEl, this.errorEl, this.quotesEl]);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.requestQuotes();
    });
    form.addEventListener('input', (event) => {
      const input = event.target as HTMLInputElement;
      if (input.type === 'radio') return;
      const name = input.dataset.f as FieldName | undefined;
      if (name) {
        this.values[name] = input.value;
        this.clearFieldError(name);
      }
      if (this.quoted) this.invalidateQuotes();
    });
    wrap.append(form);
    this.root.append(wrap);
    if (this.quotes.length) this.renderQuotes(false);
  }

  private renderQuotes(moveFocus: boolean) {
    const t = this.t;
    this.quotesEl.textContent = '';
    this.bookErrorEl = null;
    if (!this.quotes.length) return;
    // The group's legend takes the focus once the options arrive, so a screen reader names the group.
    const heading = h('legend', { id: 'dw-qh', tabindex: '-1' }, t.quotesTitle);
    const group = h('fieldset', {}, heading);
    for (const q of this.quotes) {
      const option = quoteOption(q, t, this.selected?.quote_id === q.quote_id, (radio) => {
        if (!radio.checked || !this.quoted) return;
        this.selected = q;
        this.clearErrors();
        if (this.selectOnly) this.setStatus(t.chosen(companyName(q), formatFee(q.fee_aoa)));
        this.emit('quote-selected', quoteSelectedDetail(q, this.quoted));
      });
      group.append(option);
    }
    this.quotesEl.append(group);
    if (!this.selectOnly) {
      // Booking errors show right under this button, where the shopper is looking.
      const book = h('button', { type: 'button', part: 'button' }, t.book);
      book.addEventListener('click', () => void this.book());
      this.bookErrorEl = h('div', { class: 'er', role: 'alert' });
      this.quotesEl.append(book, this.bookErrorEl);
    }
    if (moveFocus) heading.focus();
  }

  /** "New delivery": back to an empty choice, the form keeping what was typed. */
  private startOver() {
    this.delivery = null;
    this.quotes = [];
    this.quoted = null;
    this.selected = null;
    this.render();
    (this.inputs.values().next().value as HTMLInputElement | undefined)?.focus();
  }

  // --- state helpers -----------------------------------------------------------------------------

  private setStatus(text: string) {
    this.statusEl.textContent = text;
  }

  /** Clears both error regions. */
  private clearErrors() {
    this.errorEl.textContent = '';
    if (this.bookErrorEl) this.bookErrorEl.textContent = '';
  }

  /**
   * Shows an error under the button of the step that failed (`book`: under "book"; else under "get prices"), brought
   * into view, with a retry button when trying again can help (connection problems, busy couriers).
   */
  private showError(text: string, where: Step, retry?: () => void) {
    this.clearErrors();
    const el = where === 'book' && this.bookErrorEl ? this.bookErrorEl : this.errorEl;
    el.append(text);
    if (retry) {
      const again = h('button', { type: 'button', class: 's', part: 'button' }, this.t.retry);
      again.addEventListener('click', retry);
      el.append(again);
    }
    el.scrollIntoView?.({ block: 'nearest' });
  }

  private clearFieldError(name: FieldName) {
    const input = this.inputs.get(name);
    if (!input) return;
    input.removeAttribute('aria-invalid');
    const msg = this.root.getElementById(`dw-${name}-e`);
    if (msg) msg.textContent = '';
  }

  private markField(name: FieldName, message: string): boolean {
    const input = this.inputs.get(name);
    if (!input) return false;
    input.setAttribute('aria-invalid', 'true');
    const msg = this.root.getElementById(`dw-${name}-e`);
    if (msg) msg.textContent = message;
    return true;
  }

  /** Marks each field with its message and focuses the first of the widget's own inputs among them. */
  private markFields(problems: [FieldName, string][]) {
    let focused = false;
    for (const [field, message] of problems) {
      if (this.markField(field, message) && !focused) {
        this.inputs.get(field)!.focus();
        focused = true;
      }
    }
  }

  private invalidateQuotes() {
    if (!this.quoted) return;
    this.quotes = [];
    this.quoted = null;
    this.selected = null;
    this.quotesEl.textContent = '';
    this.bookErrorEl = null;
    this.setStatus(this.t.stale);
  }

  private emit(type: string, detail: unknown) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  private fail(err: unknown, where: Step = 'quote', retry?: () => void) {
    const e = err instanceof WidgetError ? err : new WidgetError('network', 0, this.t.network);
    this.setStatus('');
    this.showError(e.message, where, RETRYABLE_CODES.includes(e.code) ? retry : undefined);
    this.emit('error', errorDetail(e));
  }

  private showApiError(err: unknown, where: Step, retry: () => void) {
    this.fail(err, where, retry);
    if (err instanceof WidgetError && err.errors) {
      const fields = err.errors.map((problem) => (problem.pointer ? POINTER_FIELD[problem.pointer] : undefined));
      this.markFields(fields.filter((f): f is FieldName => !!f).map((f) => [f, this.t.invalid]));
    }
  }

  private setBusy(busy: boolean) {
    this.busy = busy;
    const form = this.root.querySelector('form');
    if (busy) form?.setAttribute('aria-busy', 'true');
    else form?.removeAttribute('aria-busy');
    for (const button of Array.from(this.root.querySelectorAll('button'))) {
      if (busy) button.setAttribute('aria-disabled', 'true');
      else button.removeAttribute('aria-disabled');
    }
  }

  // --- the steps ---------------------------------------------------------------------------------

  /** The shopper's value of a field: the page field a *-from attribute names, else the widget's input. */
  private value(name: FieldName): string {
    const from = FROM_ATTR[name] && this.getAttribute(FROM_ATTR[name]!);
    if (from) return pageValue(from);
    return (this.inputs.get(name)?.value ?? this.values[name] ?? '').trim();
  }

  /** The quote request from attributes, page fields and the form; null when something is missing (already shown). */
  private readBody(): QuoteBody | null {
    const t = this.t;
    for (const field of FIELDS) this.clearFieldError(field);
    const missing = missingSettings(this.attr, this.apiBase);
    if (missing.length) {
      this.fail(new WidgetError('misconfigured', 0, t.config(missing.join(', '))));
      return null;
    }
    const { destination, weight_grams, invalid } = readShopperFields((name) => this.value(name), this.attr, t);
    if (invalid.length) {
      this.markFields(invalid);
      const fromPage = invalid.filter(([field]) => !this.inputs.has(field)).map(([field]) => field);
      const message = fromPage.length ? `${t.checkFields} (${fromPage.join(', ')})` : t.checkFields;
      this.fail(new WidgetError('invalid_input', 0, message));
      return null;
    }
    const parcel = readParcel(this.attr, weight_grams, () => this.value('description'));
    return { origin: readOrigin(this.attr), destination, parcel };
  }

  private async requestQuotes() {
    if (this.busy) return;
    const t = this.t;
    this.clearErrors();
    const body = this.readBody();
    if (!body) return;
    this.setBusy(true);
    this.quotes = [];
    this.quoted = null;
    this.selected = null;
    this.quotesEl.textContent = '';
    this.setStatus(t.searching);
    try {
      const res = await this.api.post<QuoteList>('/v1/widget/quotes', body);
      this.quotes = [...(res?.data ?? [])].sort((a, b) => a.fee_aoa - b.fee_aoa || a.eta_minutes - b.eta_minutes);
      this.quoted = this.quotes.length ? body : null;
      this.setStatus(this.quotes.length ? t.found(this.quotes.length) : t.none);
      this.renderQuotes(true);
    } catch (err) {
      this.showApiError(err, 'quote', () => void this.requestQuotes());
    } finally {
      this.setBusy(false);
    }
  }

  private async book() {
    if (this.busy) return;
    const t = this.t;
    this.clearErrors();
    const quote = this.selected;
    const body = this.quoted;
    if (!quote || !body) {
      this.showError(t.chooseFirst, 'book');
      (this.quotesEl.querySelector('input[type=radio]') as HTMLInputElement | null)?.focus();
      return;
    }
    let key = this.idempotencyKeys.get(quote.quote_id);
    if (!key) this.idempotencyKeys.set(quote.quote_id, (key = newIdempotencyKey()));
    const request = bookingRequest(this.attr, quote, body);
    this.setBusy(true);
    this.setStatus(t.booking);
    try {
      const d = await this.api.post<Delivery>('/v1/widget/deliveries', request, key);
      this.delivery = d;
      this.render();
      this.setStatus(`${t.doneTitle}: ${d.reference}`);
      this.emit('delivery-created', deliveryCreatedDetail(d, quote));
    } catch (err) {
      const stale = err instanceof WidgetError && STALE_QUOTE_CODES.includes(err.code);
      // A stale quote: the options go, so the message goes under "get prices", the next step.
      this.showApiError(err, stale ? 'quote' : 'book', () => void this.book());
      if (stale) {
        this.invalidateQuotes();
        this.setStatus('');
      }
    } finally {
      this.setBusy(false);
    }
  }
}
