// The notification settings as stored (notification_settings: one row per tenant and mode, none until the tenant
// changes them). The defaults and the rules: ./settings.ts.
import type { Db } from '../platform/db.js';
import type { Scope } from '../platform/scope.js';
import type { Language } from './schemas.js';

export interface StoredNotificationSettings {
  sms_enabled: boolean;
  language: Language;
  sender_id: string | null;
}

/** The row of the scope's tenant and mode, or null when it never changed its settings. */
export async function storedSettingsOf(db: Db, scope: Scope): Promise<StoredNotificationSettings | null> {
  const { rows } = await db.query<StoredNotificationSettings>(
    'SELECT sms_enabled, language, sender_id FROM notification_settings WHERE tenant_id = $1 AND livemode = $2',
    [scope.tenantId, scope.livemode],
  );
  return rows[0] ?? null;
}

/** Stores the whole settings of one tenant and mode (the caller merged the change into the current ones). */
export async function saveSettings(db: Db, scope: Scope, settings: StoredNotificationSettings): Promise<void> {
  await db.query(
    `INSERT INTO notification_settings (tenant_id, livemode, sms_enabled, language, sender_id)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (tenant_id, livemode) DO UPDATE SET sms_enabled = $3, language = $4, sender_id = $5, updated_at = now()`,
    [scope.tenantId, scope.livemode, settings.sms_enabled, settings.language, settings.sender_id],
  );
}
