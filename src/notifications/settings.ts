// A tenant's notification settings of one mode (GET/PUT /v1/settings/notifications, `admin tenant notifications`):
// the stored row, or the defaults when there is none: SMS off in live mode and on in test mode (against the SMSC
// simulator), pt-AO, the service's sender. The SQL: ./settings-repository.ts.
import type { Config } from '../platform/config.js';
import type { Db } from '../platform/db.js';
import type { Scope } from '../platform/scope.js';
import type { NotificationSettings, NotificationSettingsChange } from './schemas.js';
import { saveSettings, storedSettingsOf, type StoredNotificationSettings } from './settings-repository.js';

/** The sender when SMS_SENDER_ID is not set. */
export const FALLBACK_SENDER_ID = 'Entregas';

/** The service's sender id: SMS_SENDER_ID (`config.sms.senderId`), else "Entregas". */
export function defaultSenderId(config: Config): string {
  return config.sms.senderId || FALLBACK_SENDER_ID;
}

/** What a tenant that never changed its settings gets in `livemode`. */
export const defaultSettings = (livemode: boolean): StoredNotificationSettings => ({
  sms_enabled: !livemode,
  language: 'pt-AO',
  sender_id: null,
});

const shown = (stored: StoredNotificationSettings, livemode: boolean, serviceSender: string): NotificationSettings => ({
  livemode,
  sms_enabled: stored.sms_enabled,
  language: stored.language,
  sender_id: stored.sender_id,
  effective_sender_id: stored.sender_id ?? serviceSender,
});

/** The settings in effect for the scope's tenant and mode. */
export async function notificationSettingsOf(db: Db, config: Config, scope: Scope): Promise<NotificationSettings> {
  const stored = (await storedSettingsOf(db, scope)) ?? defaultSettings(scope.livemode);
  return shown(stored, scope.livemode, defaultSenderId(config));
}

/**
 * Changes the fields given (a null sender_id goes back to the service's sender); the others keep their values. The
 * first change of a mode stores the defaults with it.
 */
export async function changeNotificationSettings(
  db: Db,
  config: Config,
  scope: Scope,
  change: NotificationSettingsChange,
): Promise<NotificationSettings> {
  const current = (await storedSettingsOf(db, scope)) ?? defaultSettings(scope.livemode);
  const next: StoredNotificationSettings = {
    sms_enabled: change.sms_enabled ?? current.sms_enabled,
    language: change.language ?? current.language,
    sender_id: change.sender_id === undefined ? current.sender_id : change.sender_id,
  };
  await saveSettings(db, scope, next);
  return shown(next, scope.livemode, defaultSenderId(config));
}
