// Delivery receipts and inbound messages in a deliver_sm (SMPP 3.4, 5.2.12 and appendix B). A receipt has the esm_class
// message type "SMSC delivery receipt" (or "intermediate delivery notification"); its state comes from the
// receipted_message_id and message_state TLVs when the SMSC sends them, else from the de-facto standard text
// "id:<id> sub:001 dlvrd:001 submit date:YYMMDDhhmm done date:YYMMDDhhmm stat:DELIVRD err:000 text:...".
import type { DeliveryReceipt, ReceiptState } from '../transport.js';

/** esm_class bits 5-2, the message type of a deliver_sm. */
const MESSAGE_TYPE_MASK = 0x3c;
const SMSC_DELIVERY_RECEIPT = 0x04;
const INTERMEDIATE_NOTIFICATION = 0x20;

export type DeliverKind = 'receipt' | 'inbound' | 'other';

/** What a deliver_sm carries, by its esm_class: a receipt, a message from a phone, or an acknowledgement we ignore. */
export function deliverKind(esmClass: number): DeliverKind {
  const type = esmClass & MESSAGE_TYPE_MASK;
  if (type === SMSC_DELIVERY_RECEIPT || type === INTERMEDIATE_NOTIFICATION) return 'receipt';
  return type === 0 ? 'inbound' : 'other';
}

/** The receipt text's stat: values (appendix B), and the message_state TLV's numbers (5.3.2.35). */
const STAT_WORDS: Record<string, ReceiptState> = {
  DELIVRD: 'delivered',
  EXPIRED: 'expired',
  DELETED: 'deleted',
  UNDELIV: 'undeliverable',
  ACCEPTD: 'accepted',
  UNKNOWN: 'unknown',
  REJECTD: 'rejected',
  ENROUTE: 'accepted',
};
const MESSAGE_STATES: Record<number, ReceiptState> = {
  1: 'accepted', // ENROUTE
  2: 'delivered',
  3: 'expired',
  4: 'deleted',
  5: 'undeliverable',
  6: 'accepted',
  7: 'unknown',
  8: 'rejected',
};

/** `key:value` fields of a receipt text ("submit date" and "done date" have a space in their name). */
function receiptFields(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of text.matchAll(/(id|sub|dlvrd|submit date|done date|stat|err):(\S*)/gi))
    fields[match[1].toLowerCase()] ??= match[2];
  return fields;
}

export interface ReceiptParts {
  /** short_message (or message_payload) as text. */
  text: string;
  receiptedMessageId?: string;
  messageState?: number;
  /** network_error_code TLV, if any (3 octets: type, code). */
  networkErrorCode?: Buffer;
}

/**
 * The receipt a deliver_sm describes, or null when it names no message. The TLVs win over the text; `at` is when the
 * receipt arrived (SMSCs write the done date in their own time zone, without saying which).
 */
export function parseReceipt(parts: ReceiptParts, at = new Date()): DeliveryReceipt | null {
  const fields = receiptFields(parts.text);
  const messageId = parts.receiptedMessageId || fields.id;
  if (!messageId) return null;
  const fromTlv = parts.messageState === undefined ? undefined : MESSAGE_STATES[parts.messageState];
  const fromText = fields.stat ? STAT_WORDS[fields.stat.toUpperCase()] : undefined;
  const state = fromTlv ?? fromText ?? 'unknown';
  const receipt: DeliveryReceipt = { messageId, state, at };
  const error = fields.err && !/^0+$/.test(fields.err) ? fields.err : networkError(parts.networkErrorCode);
  if (error) receipt.error = error;
  return receipt;
}

function networkError(code: Buffer | undefined): string | undefined {
  if (!code || code.length < 3) return undefined;
  const value = code.readUInt16BE(1);
  return value === 0 ? undefined : String(value);
}

/** The standard receipt text (appendix B), as an SMSC writes it: used by the SMSC simulator. */
export function receiptText(options: {
  id: string;
  stat: keyof typeof STAT_WORDS;
  err?: string;
  submitted: Date;
  done: Date;
  text: string;
}): string {
  const stamp = (date: Date) => date.toISOString().replace(/\D/g, '').slice(2, 12);
  const delivered = options.stat === 'DELIVRD' ? '001' : '000';
  return (
    `id:${options.id} sub:001 dlvrd:${delivered} submit date:${stamp(options.submitted)} ` +
    `done date:${stamp(options.done)} stat:${options.stat} err:${options.err ?? '000'} text:${options.text.slice(0, 20)}`
  );
}

const STAT_NUMBERS: Record<string, number> = {
  ENROUTE: 1,
  DELIVRD: 2,
  EXPIRED: 3,
  DELETED: 4,
  UNDELIV: 5,
  ACCEPTD: 6,
  UNKNOWN: 7,
  REJECTD: 8,
};

/** The message_state number of a receipt stat word (for the simulator's TLV). */
export function messageStateOf(stat: string): number {
  return STAT_NUMBERS[stat] ?? 7;
}
