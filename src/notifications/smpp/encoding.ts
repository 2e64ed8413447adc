// How a text travels as SMS: GSM-7 (data_coding 0, the GSM 03.38 default alphabet and its extension table, one octet
// per septet as SMPP carries it) when every character has a GSM-7 code, else UCS-2 (data_coding 8, UTF-16 big
// endian). The length in segments is what the phone receives: one message of 160 septets (70 UCS-2 characters), or
// concatenated parts of 153 (67) each. Pure: the transport, the SMSC simulator and the message log all use it.

/** The GSM 03.38 default alphabet, by code (0x1B is the escape to the extension table). */
const GSM7_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
/** The extension table: character -> the code after the escape (each costs two septets). */
const GSM7_EXTENDED: Record<string, number> = {
  '\f': 0x0a,
  '^': 0x14,
  '{': 0x28,
  '}': 0x29,
  '\\': 0x2f,
  '[': 0x3c,
  '~': 0x3d,
  ']': 0x3e,
  '|': 0x40,
  '€': 0x65,
};
const BASIC_CODE = new Map([...GSM7_BASIC].map((char, code) => [char, code]));
const EXTENDED_CHAR = new Map(Object.entries(GSM7_EXTENDED).map(([char, code]) => [code, char]));
const ESCAPE = 0x1b;

export type SmsEncoding = 'gsm7' | 'ucs2';

export interface EncodedSms {
  encoding: SmsEncoding;
  /** SMPP data_coding: 0 (SMSC default alphabet, GSM-7) or 8 (UCS-2). */
  dataCoding: 0 | 8;
  /** The octets of short_message or message_payload. */
  bytes: Buffer;
  /** Septets (GSM-7) or UTF-16 code units (UCS-2). */
  length: number;
  /** Messages the phone receives: 1 up to 160 septets / 70 characters, else parts of 153 / 67. */
  segments: number;
}

const LIMITS = { gsm7: { single: 160, part: 153 }, ucs2: { single: 70, part: 67 } } as const;

/** True when every character of `text` has a GSM-7 code (the default alphabet or its extension table). */
export function isGsm7(text: string): boolean {
  for (const char of text) if (!BASIC_CODE.has(char) && !(char in GSM7_EXTENDED)) return false;
  return true;
}

/**
 * `text` with each character outside GSM-7 replaced by its letter without accents when that one is GSM-7 ("Não" ->
 * "Nao", "ç" -> "c"), so that a Portuguese message can travel as GSM-7 (160 characters a segment instead of 70).
 * Lossy: the caller chooses it. Characters with no such letter (emoji) stay, and the text then goes as UCS-2.
 */
export function toGsm7(text: string): string {
  let result = '';
  for (const char of text) {
    if (BASIC_CODE.has(char) || char in GSM7_EXTENDED) {
      result += char;
      continue;
    }
    const bare = char.normalize('NFD').replace(/\p{M}/gu, '');
    result += bare && isGsm7(bare) ? bare : char;
  }
  return result;
}

function segmentsOf(encoding: SmsEncoding, length: number): number {
  const { single, part } = LIMITS[encoding];
  return length <= single ? 1 : Math.ceil(length / part);
}

/** The encoding, octets and segments of `text`: GSM-7 where possible, UCS-2 otherwise. */
export function encodeSms(text: string): EncodedSms {
  if (isGsm7(text)) {
    const septets: number[] = [];
    for (const char of text) {
      const basic = BASIC_CODE.get(char);
      if (basic !== undefined) septets.push(basic);
      else septets.push(ESCAPE, GSM7_EXTENDED[char]);
    }
    return {
      encoding: 'gsm7',
      dataCoding: 0,
      bytes: Buffer.from(septets),
      length: septets.length,
      segments: segmentsOf('gsm7', septets.length),
    };
  }
  const bytes = Buffer.from(text, 'utf16le').swap16();
  const length = bytes.length / 2;
  return { encoding: 'ucs2', dataCoding: 8, bytes, length, segments: segmentsOf('ucs2', length) };
}

/** Segments of `text` as it would be sent (for the message log). */
export function smsSegments(text: string): { encoding: SmsEncoding; segments: number } {
  const { encoding, segments } = encodeSms(text);
  return { encoding, segments };
}

function decodeGsm7(bytes: Buffer): string {
  let text = '';
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === ESCAPE && i + 1 < bytes.length) {
      text += EXTENDED_CHAR.get(bytes[++i]) ?? ' ';
    } else {
      text += GSM7_BASIC[bytes[i]] ?? ' ';
    }
  }
  return text;
}

/** The text of a short message by its data_coding (the low nibble): GSM-7, IA5/ASCII, Latin-1, UCS-2. */
export function decodeSms(dataCoding: number, bytes: Buffer): string {
  switch (dataCoding & 0x0f) {
    case 0:
      return decodeGsm7(bytes);
    case 1:
      return bytes.toString('ascii');
    case 8:
      return Buffer.from(bytes.subarray(0, bytes.length - (bytes.length % 2)))
        .swap16()
        .toString('utf16le');
    default:
      return bytes.toString('latin1');
  }
}
