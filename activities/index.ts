// Every activity the worker runs, wired to their dependencies.
import type { Config } from '../src/config.js';
import type { Pool } from '../src/db.js';
import { createQuoteActivities } from './quotes/activities.js';
import { createDeliveryActivities } from './deliveries/activities.js';
import { createMaintenanceActivities } from './maintenance/activities.js';
import { createSystemActivities } from './system/activities.js';
import { createWebhookActivities } from './webhooks/activities.js';

export interface ActivityDeps {
  config: Config;
  pool: Pool;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...createSystemActivities(deps.pool),
    ...createDeliveryActivities(deps),
    ...createQuoteActivities(deps),
    ...createWebhookActivities(deps),
    ...createMaintenanceActivities(deps),
  };
}
