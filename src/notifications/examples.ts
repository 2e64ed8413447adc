// The OpenAPI examples of the notification settings and the message log (docs/recipients.md).

export const EXAMPLE_NOTIFICATION_SETTINGS = {
  livemode: true,
  sms_enabled: true,
  language: 'pt-AO',
  sender_id: 'LojaKianda',
  effective_sender_id: 'LojaKianda',
};

export const EXAMPLE_NOTIFICATION_SETTINGS_CHANGE = { sms_enabled: true, sender_id: 'LojaKianda' };

export const EXAMPLE_NOTIFICATION = {
  id: '6d1f3a2b-8c4e-4f5a-9b7c-0e1d2c3b4a59',
  object: 'notification',
  channel: 'sms',
  kind: 'out_for_delivery',
  to: '+244 *** *** 678',
  language: 'pt-AO',
  body: 'LojaKianda: a sua encomenda DLV-7KQ2M9XW4P saiu para entrega, chega por volta das 15:30. PIN de entrega: 4821.',
  encoding: 'gsm7',
  segments: 1,
  status: 'delivered',
  reason: null,
  attempts: 1,
  created_at: '2026-11-23T14:58:02.114Z',
  submitted_at: '2026-11-23T14:58:02.391Z',
  delivered_at: '2026-11-23T14:58:05.020Z',
};

export const EXAMPLE_NOT_SENT_NOTIFICATION = {
  ...EXAMPLE_NOTIFICATION,
  id: '0a9b8c7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d',
  kind: 'delivered',
  body: 'LojaKianda: a sua encomenda DLV-7KQ2M9XW4P foi entregue. Obrigado!',
  status: 'not_sent',
  reason: 'opted_out',
  attempts: 0,
  created_at: '2026-11-23T15:31:40.502Z',
  submitted_at: null,
  delivered_at: null,
};
