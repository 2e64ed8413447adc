// <delivery-widget>: the embeddable checkout widget, served by the API at GET /widget.js (docs/widget.md).
// Vanilla custom element with a Shadow DOM; no framework, no dependencies. Built by src/pages/widget-asset.ts
// (esbuild, one minified IIFE). Every text reaches the DOM as a text node: nothing is parsed as HTML.

type Lang = 'pt' | 'en';

interface Address {
  address_line: string;
  city: string;
  province: string;
  coordinates?: { lat: number; lng: number };
  contact?: { name?: string; phone?: string };
}
interface Parcel {
  weight_grams: number;
  description?: string;
  declared_value_aoa?: number;
  length_cm?: number;
  width_cm?: number;
  height_cm?: number;
}
interface QuoteBody {
  origin: Address;
  destination: Address;
  parcel: Parcel;
}
interface Quote {
  quote_id: string;
  valid_until: string;
  company_id: string;
  fee_aoa: number;
  eta_minutes: number;
  company_name?: string;
  company_slug?: string;
  company_logo_url?: string | null;
  require_delivery_pin?: boolean;
}
/**
 * The widget reads a delivery only from its creation answer (the full view). `GET /v1/widget/deliveries/{id}` without
 * the client secret is trimmed (addresses of city and province only, no contact, PIN or parcel description): the
 * widget uses that route only as a probe of its key and origin and reads nothing from its body.
 */
interface Delivery {
  id: string;
  reference: string;
  status: string;
  tracking_url?: string;
  delivery_pin?: string | null;
  quoted_fee_aoa?: number | null;
  /** Shown once by the creation answer: GET /v1/widget/deliveries/{id}?client_secret=... returns the PIN. */
  client_secret?: string;
}
interface FieldProblem {
  pointer?: string;
  code?: string;
  detail?: string;
}

const T = {
  pt: {
    locale: 'pt-AO',
    title: 'Entrega',
    recipient: 'Destinatário',
    name: 'Nome',
    phone: 'Telefone',
    addressLine: 'Morada (rua, número, bairro)',
    city: 'Cidade',
    province: 'Província',
    parcel: 'Encomenda',
    weight: 'Peso (kg)',
    description: 'Descrição (opcional)',
    parcelSummary: (kg: string) => `Encomenda: ${kg} kg`,
    getQuotes: 'Ver preços de entrega',
    searching: 'A procurar preços…',
    quotesTitle: 'Escolha a transportadora',
    found: (n: number) => (n === 1 ? '1 opção de entrega encontrada.' : `${n} opções de entrega encontradas.`),
    none: 'Nenhuma transportadora pode fazer esta entrega. Verifique a morada e o peso.',
    eta: (d: string) => `Prazo estimado: ${d}`,
    pinNote: 'Pede código (PIN) na entrega',
    book: 'Marcar entrega',
    booking: 'A marcar a entrega…',
    chooseFirst: 'Escolha uma transportadora antes de marcar.',
    stale: 'Os dados mudaram: peça os preços novamente.',
    doneTitle: 'Entrega marcada',
    reference: 'Referência',
    courier: 'Transportadora',
    fee: 'Preço',
    pin: 'Código de entrega (PIN)',
    pinHelp: 'Dê este código ao estafeta apenas quando receber a encomenda.',
    track: 'Acompanhar a entrega',
    newTab: '(abre num novo separador)',
    again: 'Nova entrega',
    required: 'Campo obrigatório.',
    invalid: 'Valor inválido.',
    badWeight: 'Indique o peso em kg, por exemplo 1,5.',
    badPhone: 'Indique um número de telefone válido.',
    checkFields: 'Verifique os campos assinalados.',
    config: (what: string) => `Widget mal configurado: falta ${what}.`,
    unauthorized: (origin: string) =>
      `Este site (${origin}) não está autorizado a usar o serviço de entregas com esta chave. Se é o responsável pela loja, autorize esta origem para a chave pública.`,
    network: 'Sem ligação ao serviço de entregas. Verifique a sua internet e tente de novo.',
    timeout: 'O serviço de entregas está a demorar a responder. Tente de novo.',
    retry: 'Tentar de novo',
    chosen: (name: string, fee: string) => `Escolheu ${name}, ${fee}.`,
    expired: 'A cotação expirou ou já foi usada. Peça os preços novamente.',
    rateLimited: 'Demasiados pedidos. Aguarde um momento e tente novamente.',
    upstream: 'As transportadoras não responderam. Tente novamente dentro de momentos.',
    noCourier: 'Não há transportadoras disponíveis para esta loja.',
    inProgress: 'O pedido anterior ainda está em curso. Aguarde um momento.',
    paymentNotAllowed: 'Esta forma de pagamento não está disponível nesta loja.',
    generic: (status: number) => `Ocorreu um erro (HTTP ${status}). Tente novamente.`,
    dur: { min: 'min', h: 'h', day: 'dia', days: 'dias' },
  },
  en: {
    locale: 'en-GB',
    title: 'Delivery',
    recipient: 'Recipient',
    name: 'Name',
    phone: 'Phone',
    addressLine: 'Address (street, number, neighbourhood)',
    city: 'City',
    province: 'Province',
    parcel: 'Parcel',
    weight: 'Weight (kg)',
    description: 'Description (optional)',
    parcelSummary: (kg: string) => `Parcel: ${kg} kg`,
    getQuotes: 'Get delivery prices',
    searching: 'Looking for prices…',
    quotesTitle: 'Choose a courier',
    found: (n: number) => (n === 1 ? '1 delivery option found.' : `${n} delivery options found.`),
    none: 'No courier can make this delivery. Check the address and the weight.',
    eta: (d: string) => `Estimated time: ${d}`,
    pinNote: 'Asks for a code (PIN) on delivery',
    book: 'Book delivery',
    booking: 'Booking the delivery…',
    chooseFirst: 'Choose a courier before booking.',
    stale: 'The details changed: get the prices again.',
    doneTitle: 'Delivery booked',
    reference: 'Reference',
    courier: 'Courier',
    fee: 'Price',
    pin: 'Delivery code (PIN)',
    pinHelp: 'Give this code to the courier only when you receive the parcel.',
    track: 'Track the delivery',
    newTab: '(opens in a new tab)',
    again: 'New delivery',
    required: 'Required.',
    invalid: 'Invalid value.',
    badWeight: 'Enter the weight in kg, for example 1.5.',
    badPhone: 'Enter a valid phone number.',
    checkFields: 'Check the highlighted fields.',
    config: (what: string) => `Widget misconfigured: ${what} is missing.`,
    unauthorized: (origin: string) =>
      `This site (${origin}) is not allowed to use the delivery service with this key. If you run the shop, allow this origin for the publishable key.`,
    network: 'No connection to the delivery service. Check your internet and try again.',
    timeout: 'The delivery service is taking too long to answer. Try again.',
    retry: 'Try again',
    chosen: (name: string, fee: string) => `You chose ${name}, ${fee}.`,
    expired: 'The quote expired or was already used. Get the prices again.',
    rateLimited: 'Too many requests. Wait a moment and try again.',
    upstream: 'The couriers did not answer. Try again in a moment.',
    noCourier: 'No courier is available for this shop.',
    inProgress: 'The previous request is still running. Wait a moment.',
    paymentNotAllowed: 'This payment method is not available in this shop.',
    generic: (status: number) => `Something went wrong (HTTP ${status}). Try again.`,
    dur: { min: 'min', h: 'h', day: 'day', days: 'days' },
  },
};
type Strings = (typeof T)['pt'];

const PROVINCES = [
  'Bengo',
  'Benguela',
  'Bié',
  'Cabinda',
  'Cuando',
  'Cuando Cubango',
  'Cuanza Norte',
  'Cuanza Sul',
  'Cunene',
  'Huambo',
  'Huíla',
  'Icolo e Bengo',
  'Luanda',
  'Lunda Norte',
  'Lunda Sul',
  'Malanje',
  'Moxico',
  'Moxico Leste',
  'Namibe',
  'Uíge',
  'Zaire',
];

const CSS = `
:host{display:block;font:inherit;color:inherit;--dw-accent:#0b5cad;--dw-accent-text:#fff;--dw-error:#a61b1b;--dw-border:#8a8f98;--dw-radius:.5rem}
:host([hidden]){display:none}
*{box-sizing:border-box}
.w{max-width:32rem}
h2{font-size:1.15em;margin:0 0 .5em}
h2:focus,legend:focus{outline:none}
fieldset{border:1px solid var(--dw-border);border-radius:var(--dw-radius);margin:0 0 1em;padding:.5em 1em 1em}
legend{font-weight:600;padding:0 .25em}
label{display:block;margin:.5em 0 .15em;font-weight:500}
input{font:inherit;width:100%;padding:.5em;border:1px solid var(--dw-border);border-radius:.3em;background:transparent;color:inherit}
input[aria-invalid=true]{border:2px solid var(--dw-error)}
.fe{color:var(--dw-error);font-size:.9em;margin:.2em 0 0}
button{font:inherit;font-weight:600;padding:.6em 1.2em;border-radius:.3em;border:2px solid var(--dw-accent);background:var(--dw-accent);color:var(--dw-accent-text);cursor:pointer}
button.s{background:transparent;color:var(--dw-accent)}
button[aria-disabled=true]{opacity:.6;cursor:progress}
:focus-visible{outline:3px solid var(--dw-accent);outline-offset:2px}
.q{display:flex;flex-wrap:wrap;align-items:center;gap:.25em .75em;border:1px solid var(--dw-border);border-radius:var(--dw-radius);padding:.6em .8em;margin:.5em 0;cursor:pointer;font-weight:400}
.q:has(input:checked){border:2px solid var(--dw-accent)}
.q input{width:auto;margin:0;flex:none}
.q img{width:2em;height:2em;object-fit:contain;flex:none}
.q .n{flex:1 1 9em;min-width:0;overflow-wrap:anywhere}.q .f{font-weight:700;white-space:nowrap;margin-left:auto}
.q small{display:block;opacity:.8}
.st{min-height:1.5em;margin:.5em 0}
.er:empty{display:none}
.er{color:var(--dw-error);border-left:4px solid var(--dw-error);padding:.4em .8em;margin:.5em 0}
.er button{display:block;margin-top:.4em}
dl{margin:0 0 1em}dt{font-size:.9em;opacity:.8}dd{margin:0 0 .6em;font-weight:600}
.pin{font-size:1.4em;letter-spacing:.15em}
.row{display:flex;gap:.75em;flex-wrap:wrap;align-items:center}
`;

type Child = Node | string | null | undefined | false;
function h<K extends keyof HTMLElementTagNameMap>(
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

function formatFee(centavos: number): string {
  return new Intl.NumberFormat('pt-AO', { style: 'currency', currency: 'AOA' }).format(centavos / 100);
}

function formatEta(minutes: number, t: Strings): string {
  if (minutes < 60) return `${minutes} ${t.dur.min}`;
  if (minutes < 1440) {
    const hours = Math.floor(minutes / 60);
    const rest = minutes % 60;
    return rest ? `${hours} ${t.dur.h} ${rest} ${t.dur.min}` : `${hours} ${t.dur.h}`;
  }
  const days = Math.round(minutes / 1440);
  return `${days} ${days === 1 ? t.dur.day : t.dur.days}`;
}

function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A failure the widget shows and reports in an `error` event. */
class WidgetError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly apiDetail?: string,
    readonly errors?: FieldProblem[],
  ) {
    super(message);
  }
}

// The API's address defaults to where this script came from (document.currentScript is set while it runs).
const SCRIPT_ORIGIN = (() => {
  try {
    const src = (document.currentScript as HTMLScriptElement | null)?.src;
    return src ? new URL(src).origin : '';
  } catch {
    return '';
  }
})();

const FIELDS = ['name', 'phone', 'address_line', 'city', 'province', 'weight', 'description'] as const;
type FieldName = (typeof FIELDS)[number];
/** Attribute naming a page field (CSS selector) the widget reads a value from, instead of its own input. */
const FROM_ATTR: Partial<Record<FieldName, string>> = {
  name: 'recipient-name-from',
  phone: 'recipient-phone-from',
  address_line: 'address-line-from',
  city: 'city-from',
  province: 'province-from',
  weight: 'weight-kg-from',
  description: 'description-from',
};
const POINTER_FIELD: Record<string, FieldName> = {
  '/destination/address_line': 'address_line',
  '/destination/city': 'city',
  '/destination/province': 'province',
  '/destination/contact/name': 'name',
  '/destination/contact/phone': 'phone',
  '/parcel/weight_grams': 'weight',
  '/parcel/description': 'description',
};

/** How long each origin probe (see unreachable()) may take before it counts as a connection problem. */
const PROBE_TIMEOUT_MS = 10_000;
/** The delivery the origin probe asks for: none has this id, so the API answers 404 quickly to an allowed origin. */
const PROBE_DELIVERY_ID = '00000000-0000-0000-0000-000000000000';

/** fetch() through CORS without cookies, given up after `ms`: the answer, or why there was none. */
async function fetchWithin(url: string, init: RequestInit, ms: number): Promise<Response | 'timeout' | 'failed'> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  try {
    return await fetch(url, { ...init, mode: 'cors', credentials: 'omit', signal: controller.signal });
  } catch {
    return controller.signal.aborted ? 'timeout' : 'failed';
  } finally {
    clearTimeout(timer);
  }
}

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
  /** Set once the API has answered this page: a later failed request is then a connection problem, not the origin. */
  private apiAnswered = false;
  private statusEl!: HTMLElement;
  /** Errors of the step the shopper is at: under "get prices" (and the form), or under "book" once options show. */
  private errorEl!: HTMLElement;
  private bookErrorEl: HTMLElement | null = null;
  private quotesEl!: HTMLElement;
  private inputs = new Map<FieldName, HTMLInputElement>();
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
    if (this.delivery) {
      wrap.append(this.doneView(this.delivery), this.statusEl, this.errorEl);
      this.root.append(wrap);
      return;
    }
    // The heading: the `heading` attribute's text, none when it is empty (the form keeps its name for screen readers).
    const headingText = (this.getAttribute('heading') ?? t.title).trim();
    const form = h(
      'form',
      headingText ? { novalidate: true, 'aria-labelledby': 'dw-title' } : { novalidate: true, 'aria-label': t.title },
    );
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

    const recipient = this.fieldset(t.recipient, [
      this.field('name', t.name, { autocomplete: 'name', required: true }),
      this.field('phone', t.phone, { type: 'tel', autocomplete: 'tel', inputmode: 'tel', required: true }),
      this.field('address_line', t.addressLine, { autocomplete: 'address-line1', required: true }),
      this.field('city', t.city, { autocomplete: 'address-level2', required: true }),
      this.field('province', t.province, { autocomplete: 'address-level1', list: 'dw-provinces', required: true }),
    ]);
    const staticWeight = this.staticWeightGrams();
    const parcel =
      staticWeight !== null
        ? h(
            'p',
            {},
            t.parcelSummary(new Intl.NumberFormat(t.locale, { maximumFractionDigits: 3 }).format(staticWeight / 1000)),
          )
        : this.fieldset(t.parcel, [
            this.field('weight', t.weight, {
              inputmode: 'decimal',
              required: true,
              placeholder: this.language === 'pt' ? '1,5' : '1.5',
            }),
            this.getAttribute('parcel-description') ? null : this.field('description', t.description, {}),
          ]);
    this.quotesEl = h('div');
    form.append(
      headingText ? h('h2', { id: 'dw-title' }, headingText) : '',
      recipient ?? '',
      parcel ?? '',
      h('datalist', { id: 'dw-provinces' }, ...PROVINCES.map((p) => h('option', { value: p }))),
      h('button', { type: 'submit', part: 'button' }, t.getQuotes),
      this.statusEl,
      this.errorEl,
      this.quotesEl,
    );
    wrap.append(form);
    this.root.append(wrap);
    if (this.quotes.length) this.renderQuotes(false);
  }

  /** A labelled input, or nothing when a page field (named by a *-from attribute) supplies the value. */
  private field(name: FieldName, label: string, attrs: Record<string, string | boolean>): HTMLElement | null {
    const from = FROM_ATTR[name];
    if (from && this.getAttribute(from)) return null;
    const id = `dw-${name}`;
    const input = h('input', { id, name, type: 'text', 'aria-describedby': `${id}-e`, ...attrs, 'data-f': name });
    input.value = this.values[name] ?? '';
    this.inputs.set(name, input);
    return h('div', {}, h('label', { for: id }, label), input, h('p', { class: 'fe', id: `${id}-e` }));
  }

  private fieldset(legend: string, children: (HTMLElement | null)[]): HTMLElement | null {
    const present = children.filter((c): c is HTMLElement => !!c);
    return present.length ? h('fieldset', {}, h('legend', {}, legend), ...present) : null;
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
      const radio = h('input', { type: 'radio', name: 'dw-quote', value: q.quote_id });
      radio.checked = this.selected?.quote_id === q.quote_id;
      radio.addEventListener('change', () => {
        if (!radio.checked || !this.quoted) return;
        this.selected = q;
        this.clearErrors();
        if (this.selectOnly) this.setStatus(t.chosen(q.company_name || q.company_slug || '—', formatFee(q.fee_aoa)));
        // Everything a shop's server needs to book this quote later (POST /v1/deliveries within valid_until): the
        // quote, and the origin, destination and parcel exactly as quoted.
        this.emit('quote-selected', {
          quote: { ...q },
          quote_id: q.quote_id,
          company_id: q.company_id,
          company_name: q.company_name ?? null,
          fee_aoa: q.fee_aoa,
          eta_minutes: q.eta_minutes,
          valid_until: q.valid_until,
          origin: this.quoted.origin,
          destination: this.quoted.destination,
          parcel: this.quoted.parcel,
        });
      });
      const logo =
        q.company_logo_url && /^https?:\/\//i.test(q.company_logo_url)
          ? h('img', { src: q.company_logo_url, alt: '', loading: 'lazy', referrerpolicy: 'no-referrer' })
          : null;
      logo?.addEventListener('error', () => logo.remove());
      group.append(
        h(
          'label',
          { class: 'q' },
          radio,
          logo,
          h(
            'span',
            { class: 'n' },
            h('span', { class: 'cn' }, q.company_name || q.company_slug || '—'),
            h('small', {}, t.eta(formatEta(q.eta_minutes, t))),
            q.require_delivery_pin ? h('small', {}, t.pinNote) : null,
          ),
          h('span', { class: 'f' }, formatFee(q.fee_aoa)),
        ),
      );
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

  private doneView(d: Delivery): HTMLElement {
    const t = this.t;
    const heading = h('h2', { id: 'dw-done', tabindex: '-1' }, t.doneTitle);
    const list = h('dl', {}, h('dt', {}, t.reference), h('dd', { 'data-v': 'reference' }, d.reference));
    if (this.selected)
      list.append(h('dt', {}, t.courier), h('dd', {}, this.selected.company_name || this.selected.company_slug || '—'));
    const fee = d.quoted_fee_aoa ?? this.selected?.fee_aoa;
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
    again.addEventListener('click', () => {
      this.delivery = null;
      this.quotes = [];
      this.quoted = null;
      this.selected = null;
      this.render();
      (this.inputs.values().next().value as HTMLInputElement | undefined)?.focus();
    });
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
  private showError(text: string, where: 'quote' | 'book', retry?: () => void) {
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

  private fail(err: unknown, where: 'quote' | 'book' = 'quote', retry?: () => void) {
    const t = this.t;
    const e = err instanceof WidgetError ? err : new WidgetError('network', 0, t.network);
    this.setStatus('');
    const retryable = [
      'network',
      'timeout',
      'rate_limited',
      'upstream_unavailable',
      'idempotency_request_in_progress',
    ].includes(e.code);
    this.showError(e.message, where, retryable ? retry : undefined);
    this.emit('error', {
      code: e.code,
      status: e.status,
      message: e.message,
      detail: e.apiDetail ?? null,
      errors: e.errors ?? null,
    });
  }

  // --- reading input -----------------------------------------------------------------------------

  private value(name: FieldName): string {
    const from = FROM_ATTR[name] && this.getAttribute(FROM_ATTR[name]!);
    if (from) {
      let el: Element | null = null;
      try {
        el = document.querySelector(from);
      } catch {
        el = null;
      }
      const v = el && 'value' in el ? String((el as HTMLInputElement).value) : (el?.textContent ?? '');
      return v.trim();
    }
    return (this.inputs.get(name)?.value ?? this.values[name] ?? '').trim();
  }

  private staticWeightGrams(): number | null {
    const raw = this.getAttribute('weight-grams');
    if (raw === null) return null;
    const n = Number(raw);
    return Number.isInteger(n) && n > 0 ? n : null;
  }

  private intAttr(name: string): number | undefined {
    const raw = this.getAttribute(name);
    if (raw === null || raw.trim() === '') return undefined;
    const n = Number(raw);
    return Number.isInteger(n) && n >= 0 ? n : undefined;
  }

  /** The quote request from attributes, page fields and the form; null when something is missing (already shown). */
  private readBody(): QuoteBody | null {
    const t = this.t;
    for (const field of FIELDS) this.clearFieldError(field);
    const missing = ['publishable-key', 'origin-address-line', 'origin-city', 'origin-province'].filter(
      (a) => !this.getAttribute(a)?.trim(),
    );
    if (!this.apiBase) missing.push('api-base');
    if (missing.length) {
      this.fail(new WidgetError('misconfigured', 0, t.config(missing.join(', '))));
      return null;
    }
    const invalid: [FieldName, string][] = [];
    const required = (name: FieldName) => {
      const v = this.value(name);
      if (!v) invalid.push([name, t.required]);
      return v;
    };
    const name = required('name');
    const phone = required('phone');
    if (phone && !/^\+?[\d\s().-]{9,20}$/.test(phone)) invalid.push(['phone', t.badPhone]);
    const address_line = required('address_line');
    const city = required('city');
    const province = required('province');
    let weight_grams = this.staticWeightGrams();
    if (weight_grams === null) {
      const raw = required('weight').replace(',', '.');
      const kg = Number(raw);
      if (raw && (!/^\d+(\.\d+)?$/.test(raw) || !(kg > 0) || kg > 10_000)) invalid.push(['weight', t.badWeight]);
      weight_grams = Math.max(1, Math.round(kg * 1000));
    }
    if (invalid.length) {
      let focused = false;
      for (const [field, message] of invalid) {
        if (this.markField(field, message) && !focused) {
          this.inputs.get(field)!.focus();
          focused = true;
        }
      }
      const fromPage = invalid.filter(([field]) => !this.inputs.has(field)).map(([field]) => field);
      this.fail(
        new WidgetError(
          'invalid_input',
          0,
          fromPage.length ? `${t.checkFields} (${fromPage.join(', ')})` : t.checkFields,
        ),
      );
      return null;
    }

    const origin: Address = {
      address_line: this.getAttribute('origin-address-line')!.trim(),
      city: this.getAttribute('origin-city')!.trim(),
      province: this.getAttribute('origin-province')!.trim(),
    };
    const lat = Number(this.getAttribute('origin-lat') ?? NaN);
    const lng = Number(this.getAttribute('origin-lng') ?? NaN);
    if (
      this.getAttribute('origin-lat') &&
      this.getAttribute('origin-lng') &&
      Number.isFinite(lat) &&
      Number.isFinite(lng)
    )
      origin.coordinates = { lat, lng };
    const originName = this.getAttribute('origin-contact-name')?.trim();
    const originPhone = this.getAttribute('origin-contact-phone')?.trim();
    if (originName || originPhone)
      origin.contact = { ...(originName ? { name: originName } : {}), ...(originPhone ? { phone: originPhone } : {}) };

    const parcel: Parcel = { weight_grams };
    const description = this.getAttribute('parcel-description')?.trim() || this.value('description');
    if (description) parcel.description = description;
    const declared = this.intAttr('declared-value-aoa');
    if (declared !== undefined) parcel.declared_value_aoa = declared;
    for (const dim of ['length_cm', 'width_cm', 'height_cm'] as const) {
      const v = this.intAttr(dim.replace('_', '-'));
      if (v !== undefined && v > 0) parcel[dim] = v;
    }
    return { origin, destination: { address_line, city, province, contact: { name, phone } }, parcel };
  }

  // --- talking to the API ------------------------------------------------------------------------

  private async call<R>(path: string, body: unknown, idempotencyKey?: string): Promise<R> {
    const t = this.t;
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.getAttribute('publishable-key')!.trim()}`,
      'Content-Type': 'application/json',
    };
    if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
    const res = await fetchWithin(this.apiBase + path, { method: 'POST', headers, body: JSON.stringify(body) }, 30_000);
    if (res === 'timeout') throw new WidgetError('timeout', 0, t.timeout);
    if (res === 'failed') throw await this.unreachable();
    // A readable answer: the browser let this origin through (CORS), so later failures are the connection's.
    this.apiAnswered = true;
    const data = await res.json().catch(() => null);
    if (res.ok) return data as R;
    const code: string = typeof data?.error === 'string' ? data.error : `http_${res.status}`;
    const detail: string | undefined = typeof data?.detail === 'string' ? data.detail : undefined;
    const errors: FieldProblem[] | undefined = Array.isArray(data?.errors) ? data.errors : undefined;
    throw new WidgetError(code, res.status, this.messageFor(res.status, code), detail, errors);
  }

  /**
   * fetch() threw: the network failed (down, reset, timed out) or the browser refused the answer (CORS). For an origin
   * no key allows, the API refuses the CORS preflight, so its 401 never reaches this page. To tell the two apart, the
   * widget asks the API once more through CORS with the same key (a cheap GET on the widget surface, preflighted like
   * the real request): any readable answer means the browser lets this origin through, so the failure was the
   * connection's; a 401 is the API refusing this origin for the key. Only when that probe is refused as well while the
   * widget script (readable from any origin) still answers is the origin the problem; a transient failure of the
   * first request is never reported as "not allowed".
   */
  private async unreachable(): Promise<WidgetError> {
    const t = this.t;
    const network = new WidgetError('network', 0, t.network);
    // The API has answered this page before: the origin is fine, the connection is not.
    if (this.apiAnswered) return network;
    const probe = async (url: string, init: RequestInit): Promise<Response | null> => {
      const res = await fetchWithin(url, { ...init, cache: 'no-store' }, PROBE_TIMEOUT_MS);
      return typeof res === 'string' ? null : res;
    };
    const keyed = await probe(`${this.apiBase}/v1/widget/deliveries/${PROBE_DELIVERY_ID}`, {
      method: 'GET',
      headers: { Authorization: `Bearer ${this.getAttribute('publishable-key')!.trim()}` },
    });
    if (keyed) {
      this.apiAnswered = true;
      return keyed.status === 401
        ? new WidgetError('origin_not_allowed', 401, t.unauthorized(location.origin))
        : network;
    }
    const script = await probe(`${this.apiBase}/widget.js`, { method: 'HEAD' });
    if (script?.ok) return new WidgetError('origin_not_allowed', 401, t.unauthorized(location.origin));
    return network;
  }

  private messageFor(status: number, code: string): string {
    const t = this.t;
    if (status === 401) return t.unauthorized(location.origin);
    if (['quote_expired', 'quote_already_used', 'quote_not_found', 'quote_payload_mismatch'].includes(code))
      return t.expired;
    if (status === 429) return t.rateLimited;
    if (status === 502) return t.upstream;
    if (status === 503) return t.noCourier;
    if (code === 'idempotency_request_in_progress') return t.inProgress;
    if (code === 'payment_method_not_allowed') return t.paymentNotAllowed;
    if (status === 422) return t.checkFields;
    return t.generic(status);
  }

  private async requestQuotes() {
    if (this.busy) return;
    const t = this.t;
    this.clearErrors();
    const body = this.readBody();
    if (!body) return;
    this.busy = true;
    this.setBusy(true);
    this.quotes = [];
    this.quoted = null;
    this.selected = null;
    this.quotesEl.textContent = '';
    this.setStatus(t.searching);
    try {
      const res = await this.call<{ data: Quote[] }>('/v1/widget/quotes', body);
      this.quotes = [...(res?.data ?? [])].sort((a, b) => a.fee_aoa - b.fee_aoa || a.eta_minutes - b.eta_minutes);
      this.quoted = this.quotes.length ? body : null;
      this.setStatus(this.quotes.length ? t.found(this.quotes.length) : t.none);
      this.renderQuotes(true);
    } catch (err) {
      this.showApiError(err, 'quote', () => void this.requestQuotes());
    } finally {
      this.busy = false;
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
    const request: Record<string, unknown> = { quote_id: quote.quote_id, company_id: quote.company_id, ...body };
    const payment = this.getAttribute('payment-method');
    if (payment === 'prepaid' || payment === 'bank_transfer' || payment === 'cod') request.payment_method = payment;
    if (payment === 'cod') request.cash_collect_aoa = this.intAttr('cash-collect-aoa') ?? null;
    const orderId = this.getAttribute('order-id');
    if (orderId) request.options = { metadata: { order_id: orderId } };
    this.busy = true;
    this.setBusy(true);
    this.setStatus(t.booking);
    try {
      const d = await this.call<Delivery>('/v1/widget/deliveries', request, key);
      this.delivery = d;
      this.render();
      this.setStatus(`${t.doneTitle}: ${d.reference}`);
      this.emit('delivery-created', {
        id: d.id,
        reference: d.reference,
        status: d.status,
        tracking_url: d.tracking_url ?? null,
        delivery_pin: d.delivery_pin ?? null,
        client_secret: d.client_secret ?? null,
        fee_aoa: d.quoted_fee_aoa ?? quote.fee_aoa,
        quote_id: quote.quote_id,
        company_id: quote.company_id,
        company_name: quote.company_name ?? null,
      });
    } catch (err) {
      const stale =
        err instanceof WidgetError &&
        ['quote_expired', 'quote_already_used', 'quote_not_found', 'quote_payload_mismatch'].includes(err.code);
      // A stale quote: the options go, so the message goes under "get prices", the next step.
      this.showApiError(err, stale ? 'quote' : 'book', () => void this.book());
      if (stale) {
        this.invalidateQuotes();
        this.setStatus('');
      }
    } finally {
      this.busy = false;
      this.setBusy(false);
    }
  }

  private showApiError(err: unknown, where: 'quote' | 'book', retry: () => void) {
    this.fail(err, where, retry);
    if (err instanceof WidgetError && err.errors) {
      let focused = false;
      for (const problem of err.errors) {
        const field = problem.pointer ? POINTER_FIELD[problem.pointer] : undefined;
        if (field && this.markField(field, this.t.invalid) && !focused) {
          this.inputs.get(field)!.focus();
          focused = true;
        }
      }
    }
  }

  private setBusy(busy: boolean) {
    const form = this.root.querySelector('form');
    if (busy) form?.setAttribute('aria-busy', 'true');
    else form?.removeAttribute('aria-busy');
    for (const button of Array.from(this.root.querySelectorAll('button'))) {
      if (busy) button.setAttribute('aria-disabled', 'true');
      else button.removeAttribute('aria-disabled');
    }
  }
}

function safeMatches(el: Element, selector: string): boolean {
  try {
    return el.matches(selector);
  } catch {
    return false;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'delivery-widget': DeliveryWidget;
  }
}

if (!customElements.get('delivery-widget')) customElements.define('delivery-widget', DeliveryWidget);
