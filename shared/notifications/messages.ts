// The recipient's SMS messages (docs/recipients.md "Messages"): their texts in pt-AO (the default) and English, the
// encoding they travel in (GSM-7 when every character is in the GSM 03.38 alphabet, else UCS-2) and how many segments
// they take, and the opt-out keyword of a reply. Pure code.
//
// The pt-AO texts are worded to stay in GSM-7: GSM-7 has é, è, à, ù, ì, ò, Ç and ü but not ã, õ, á, í, ó, ú, â, ê,
// ô or ç, and a single one of those turns the whole message into UCS-2 (70 characters a segment instead of 160). So
// "Acompanhe e diga-nos onde entregar" rather than "indicações", "nova tentativa" rather than "próxima", "entregador"
// rather than "estafeta"/"motoqueiro" with a code word. A shop name outside GSM-7 still makes its messages UCS-2: the
// log shows the encoding and the segments.

export const NOTIFICATION_KINDS = ['created', 'out_for_delivery', 'attempt_failed', 'delivered'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];
export type NotificationLanguage = 'pt-AO' | 'en';

/** The delivery event each message announces. */
export const KIND_OF_EVENT: Readonly<Record<string, NotificationKind>> = {
  'delivery.created': 'created',
  'delivery.out_for_delivery': 'out_for_delivery',
  'delivery.attempt_failed': 'attempt_failed',
  'delivery.delivered': 'delivered',
};

export interface MessageInput {
  kind: NotificationKind;
  language: NotificationLanguage;
  /** The shop's name as its customers know it. */
  shop: string;
  /** The recipient link (src/recipients/link.ts). */
  link: string;
  /** The delivery PIN, only when the courier requires one (out_for_delivery). */
  pin?: string | null;
  /** The courier's estimate (out_for_delivery): minutes from now, or a time of arrival. */
  etaMinutes?: number | null;
  etaAt?: Date | null;
}

/** Longest shop name a message carries (a longer one is cut): the texts stay short. */
const SHOP_MAX = 30;
/** Angola's time (WAT, UTC+1, no daylight saving time): an ETA is shown as the recipient's clock reads it. */
const LUANDA_OFFSET_MS = 3_600_000;

function clock(at: Date): string {
  const local = new Date(at.getTime() + LUANDA_OFFSET_MS);
  return `${String(local.getUTCHours()).padStart(2, '0')}:${String(local.getUTCMinutes()).padStart(2, '0')}`;
}

function etaPhrase(input: MessageInput): string {
  const pt = input.language === 'pt-AO';
  if (typeof input.etaMinutes === 'number' && Number.isFinite(input.etaMinutes) && input.etaMinutes > 0) {
    const minutes = Math.round(input.etaMinutes);
    return pt ? ` e chega em cerca de ${minutes} min` : `, arriving in about ${minutes} min`;
  }
  if (input.etaAt && !Number.isNaN(input.etaAt.getTime())) {
    return pt ? ` e chega por volta das ${clock(input.etaAt)}` : `, arriving around ${clock(input.etaAt)}`;
  }
  return '';
}

/** The message's text. */
export function composeMessage(input: MessageInput): string {
  const shop = input.shop.trim().slice(0, SHOP_MAX) || 'Entregas';
  const pt = input.language === 'pt-AO';
  switch (input.kind) {
    case 'created':
      return pt
        ? `${shop}: recebemos o pedido de entrega da sua encomenda. Acompanhe e diga-nos onde entregar: ${input.link} Para deixar de receber SMS, responda PARAR.`
        : `${shop}: we have your delivery order. Track it and tell us where to deliver: ${input.link} Reply STOP to opt out.`;
    case 'out_for_delivery': {
      const pin = input.pin
        ? pt
          ? ` Diga o PIN ${input.pin} ao entregador.`
          : ` Give the driver the PIN ${input.pin}.`
        : '';
      return pt
        ? `${shop}: a sua encomenda saiu para entrega${etaPhrase(input)}.${pin}`
        : `${shop}: your parcel is out for delivery${etaPhrase(input)}.${pin}`;
    }
    case 'attempt_failed':
      return pt
        ? `${shop}: a entrega da sua encomenda falhou hoje. Escolha quando prefere a nova tentativa: ${input.link}`
        : `${shop}: today's delivery attempt failed. Choose when to try again: ${input.link}`;
    case 'delivered':
      return pt
        ? `${shop}: a sua encomenda foi entregue. Obrigado!`
        : `${shop}: your parcel has been delivered. Thank you!`;
  }
}

// GSM 03.38: the basic alphabet (one septet each; 0x1B, the escape, left out) and its extension table (escape + septet).
const GSM7_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
const GSM7_EXTENSION = new Set('\f^{}\\[~]|€');

export interface SmsEncoding {
  encoding: 'gsm7' | 'ucs2';
  /** Septets (GSM-7, an extension character counts 2) or UTF-16 code units (UCS-2). */
  units: number;
  segments: number;
}

/** Segments of `sizes` (each character's units, never split across two segments): one of `single`, else of `multi`. */
function countSegments(sizes: number[], single: number, multi: number): number {
  const total = sizes.reduce((a, b) => a + b, 0);
  if (total <= single) return 1;
  let segments = 1;
  let used = 0;
  for (const size of sizes) {
    if (used + size > multi) {
      segments++;
      used = 0;
    }
    used += size;
  }
  return segments;
}

/** How `text` travels: GSM-7 (160 septets, 153 a part of a long message) or UCS-2 (70, 67 a part). */
export function smsEncoding(text: string): SmsEncoding {
  const chars = [...text];
  if (chars.every((c) => GSM7_BASIC.has(c) || GSM7_EXTENSION.has(c))) {
    const sizes = chars.map((c) => (GSM7_EXTENSION.has(c) ? 2 : 1));
    return { encoding: 'gsm7', units: sizes.reduce((a, b) => a + b, 0), segments: countSegments(sizes, 160, 153) };
  }
  const sizes = chars.map((c) => c.length); // a character outside the BMP is a surrogate pair: 2 code units
  return { encoding: 'ucs2', units: text.length, segments: countSegments(sizes, 70, 67) };
}

const OPT_OUT_KEYWORDS = new Set(['PARAR', 'STOP']);

/** Whether a reply opts its phone out: "PARAR" or "STOP", whatever the case, accents, spaces or final punctuation. */
export function isOptOutKeyword(text: string): boolean {
  const word = text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[\s.!]+/gu, '')
    .toUpperCase();
  return OPT_OUT_KEYWORDS.has(word);
}

/**
 * A phone as the outbox stores it: digits only, country code first. An Angolan number written without it (9 digits
 * starting with 9, or with the trunk 0) gets 244. Null when nothing like a phone number is left.
 */
export function normalizePhone(phone: string | null | undefined): string | null {
  if (!phone) return null;
  let digits = phone.replace(/\D/g, '');
  if (phone.trim().startsWith('00')) digits = digits.slice(2);
  if (/^0?9\d{8}$/.test(digits)) digits = `244${digits.replace(/^0/, '')}`;
  return digits.length >= 8 && digits.length <= 15 ? digits : null;
}
