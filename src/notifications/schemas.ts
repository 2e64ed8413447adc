// The notification settings and the message log as the API shows them (design.md "Recipients hear from the service",
// docs/recipients.md).
import { z } from 'zod';
import { Timestamp } from '../http/schemas.js';
import {
  EXAMPLE_NOT_SENT_NOTIFICATION,
  EXAMPLE_NOTIFICATION,
  EXAMPLE_NOTIFICATION_SETTINGS,
  EXAMPLE_NOTIFICATION_SETTINGS_CHANGE,
} from './examples.js';

export const LANGUAGES = ['pt-AO', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

/**
 * A sender id the SMSC carries: 1 to 11 ASCII letters, digits and inner spaces (alphanumeric, at least one letter or
 * digit at each end), or a number of up to 15 digits. ASCII letters only: they are GSM-7 everywhere, and operators'
 * SMSCs refuse accented senders.
 */
export const SENDER_ID_PATTERN = /^(?:[A-Za-z0-9](?:[A-Za-z0-9 ]{0,9}[A-Za-z0-9])?|[0-9]{1,15})$/;

const SenderId = z
  .string()
  .regex(SENDER_ID_PATTERN, {
    error: 'must be 1 to 11 letters (A-Z, no accents), digits and inner spaces, or a number of up to 15 digits',
  })
  .nullable()
  .meta({
    description:
      'What recipients see as the sender: 1 to 11 letters (A-Z, no accents), digits and inner spaces, or a number of ' +
      "up to 15 digits. null: the service's default sender (effective_sender_id).",
  });

export const NotificationSettings = z
  .object({
    livemode: z.boolean().meta({ description: "The mode these settings are of: the key's." }),
    sms_enabled: z.boolean().meta({
      description: 'Send SMS to recipients. Off by default in live mode, on in test mode (to the SMSC simulator).',
    }),
    language: z.enum(LANGUAGES).meta({ description: 'The language of the messages (pt-AO by default).' }),
    sender_id: SenderId,
    effective_sender_id: z
      .string()
      .meta({ description: "The sender recipients see: sender_id, or the service's default when it is null." }),
  })
  .meta({ id: 'NotificationSettings', examples: [EXAMPLE_NOTIFICATION_SETTINGS] });
export type NotificationSettings = z.infer<typeof NotificationSettings>;

/** A PUT changes the fields it names; the others keep their values (as PUT /v1/settings/dispatch). */
export const NotificationSettingsChange = z
  .strictObject({
    sms_enabled: z.boolean().optional(),
    language: z.enum(LANGUAGES).optional(),
    sender_id: SenderId.optional(),
  })
  .meta({ id: 'NotificationSettingsChange', examples: [EXAMPLE_NOTIFICATION_SETTINGS_CHANGE] });
export type NotificationSettingsChange = z.infer<typeof NotificationSettingsChange>;

export const NOTIFICATION_KINDS = ['created', 'out_for_delivery', 'attempt_failed', 'delivered'] as const;
export const NOTIFICATION_STATUSES = ['queued', 'submitted', 'delivered', 'failed', 'not_sent'] as const;

export const Notification = z
  .object({
    id: z.uuid(),
    object: z.literal('notification'),
    channel: z.enum(['sms']),
    kind: z.enum(NOTIFICATION_KINDS).meta({ description: 'The delivery event the message announces.' }),
    to: z.string().meta({ description: "The recipient's phone, masked: its country code and last 3 digits." }),
    language: z.enum(LANGUAGES),
    body: z.string().meta({ description: 'The text as sent (it may hold the recipient link).' }),
    encoding: z.enum(['gsm7', 'ucs2']),
    segments: z.int().meta({ description: 'How many SMS parts the text takes (160/153 GSM-7, 70/67 UCS-2).' }),
    status: z.enum(NOTIFICATION_STATUSES).meta({
      description:
        "queued: waiting to be sent (or between tries); submitted: the operator's SMSC took it; delivered: the phone " +
        'received it (delivery receipt); failed: it could not be delivered; not_sent: never sent, reason says why.',
    }),
    reason: z
      .string()
      .nullable()
      .meta({
        description:
          'Why a message was not sent or failed: opted_out (the recipient replied PARAR or STOP), disabled (SMS off), ' +
          "no_provider, a delivery receipt's state (undeliverable:<error>, expired, ...) or the SMSC's refusal (ESME_...); " +
          "a queued message keeps its last try's error; null otherwise.",
      }),
    attempts: z.int().meta({ description: 'Submits tried.' }),
    created_at: Timestamp,
    submitted_at: Timestamp.nullable(),
    delivered_at: Timestamp.nullable(),
  })
  .meta({ id: 'Notification', examples: [EXAMPLE_NOTIFICATION] });

export const NotificationList = z.object({ object: z.literal('list'), data: z.array(Notification) }).meta({
  id: 'NotificationList',
  examples: [{ object: 'list', data: [EXAMPLE_NOTIFICATION, EXAMPLE_NOT_SENT_NOTIFICATION] }],
});

export const DeliveryIdParam = z.object({ delivery_id: z.uuid() });
