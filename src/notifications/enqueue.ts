// Writing a recipient's message into the outbox (docs/recipients.md "The outbox"), with its delivery event: in the API's
// transaction that creates the delivery, or right after the workflow's statement that records the event (a record
// repeated after a crash writes it then), and the sender (src/notifications/outbox.ts) sends it later from the worker,
// never on the delivery's path. Two statements, no network: the delivery's context, then the row (which a second
// recording of the same event leaves as it was).
import { randomUUID } from 'node:crypto';
import type { Config } from '../platform/config.js';
import type { Db } from '../platform/db.js';
import { recipientUrl } from '../recipients/link.js';
import {
  KIND_OF_EVENT,
  composeMessage,
  normalizePhone,
  smsEncoding,
  type NotificationLanguage,
} from '../../shared/notifications/messages.js';
import { insertNotification, notificationContext } from './repository.js';

/** What composing a message needs from the process's configuration. */
export interface SmsDefaults {
  /** The API's public address: the recipient link is built from it. */
  baseUrl: string;
  /** The sender id of a tenant that chose none. */
  senderId: string;
}

export interface NotifiableEvent {
  eventId: string;
  eventType: string;
  deliveryId: string;
  payload?: Record<string, unknown> | null;
}

/** The courier's estimate in an out_for_delivery event (payload.courier.eta_minutes, or .eta as a time). */
function etaOf(payload: Record<string, unknown> | null | undefined): { etaMinutes?: number; etaAt?: Date } {
  const courier = payload?.courier as Record<string, unknown> | undefined;
  if (typeof courier?.eta_minutes === 'number') return { etaMinutes: courier.eta_minutes };
  if (typeof courier?.eta === 'string') return { etaAt: new Date(courier.eta) };
  return {};
}

/**
 * Stores the message of `event` when it is one of the four the recipient hears of (created, out for delivery, attempt
 * failed, delivered) and the delivery's destination has a phone: queued when the tenant's SMS are on (the default in
 * test mode), not_sent `disabled` when they are off (the default in live mode), not_sent `opted_out` when the phone
 * opted out. An ignored event (payload.ignored) has none.
 */
export async function enqueueNotification(client: Db, event: NotifiableEvent, defaults: SmsDefaults) {
  const kind = KIND_OF_EVENT[event.eventType];
  if (!kind || event.payload?.ignored) return;
  const ctx = await notificationContext(client, event.deliveryId);
  const recipient = normalizePhone(ctx?.phone);
  if (!ctx || !recipient) return;
  const language: NotificationLanguage = ctx.language ?? 'pt-AO';
  const body = composeMessage({
    kind,
    language,
    shop: ctx.shop,
    link: recipientUrl(defaults.baseUrl, event.deliveryId, ctx.recipient_token),
    pin: ctx.require_delivery_pin ? ctx.delivery_pin : null,
    ...(kind === 'out_for_delivery' ? etaOf(event.payload) : {}),
  });
  const { encoding, segments } = smsEncoding(body);
  const enabled = ctx.sms_enabled ?? !ctx.livemode;
  await insertNotification(client, {
    id: randomUUID(),
    tenantId: ctx.tenant_id,
    livemode: ctx.livemode,
    deliveryId: event.deliveryId,
    eventId: event.eventId,
    kind,
    recipient,
    language,
    senderId: ctx.sender_id ?? defaults.senderId,
    body,
    encoding,
    segments,
    status: enabled ? 'queued' : 'not_sent',
    reason: enabled ? null : 'disabled',
  });
}

/** The defaults of this process's configuration. */
export function smsDefaults(config: Pick<Config, 'baseUrl' | 'sms'>): SmsDefaults {
  return { baseUrl: config.baseUrl, senderId: config.sms.senderId };
}
