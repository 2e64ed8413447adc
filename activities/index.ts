// Every activity the worker runs, wired to their dependencies.
import type { Client } from '@temporalio/client';
import { log } from '@temporalio/activity';
import type { Config } from '../src/platform/config.js';
import type { Pool } from '../src/platform/db.js';
import { createWebhookDispatcher } from '../src/webhooks/dispatcher.js';
import { createWebhookSender } from '../src/webhooks/sender.js';
import { createCodActivities } from './cod/activities.js';
import { createDeliveryActivities } from './deliveries/activities.js';
import { createMaintenanceActivities } from './maintenance/activities.js';
import { createSystemActivities } from './system/activities.js';
import { createWebhookActivities } from './webhooks/activities.js';

export interface ActivityDeps {
  config: Config;
  pool: Pool;
  /** Starts webhook retry workflows from the outbox (absent in worker-less tests: the sweeper's job then). */
  temporal?: Client;
}

export function createActivities(deps: ActivityDeps) {
  // One sender (its keep-alive connections to receivers) for the outbox's first attempts and the retry workflows'.
  const sender = createWebhookSender({ ...deps, log });
  const webhooks = createWebhookDispatcher({ ...deps, attempt: sender.attemptWebhook, log });
  return {
    ...createSystemActivities(deps.pool),
    ...createDeliveryActivities({ ...deps, webhooks, sender }),
    ...createWebhookActivities({ ...deps, sender }),
    ...createMaintenanceActivities(deps),
    ...createCodActivities({ ...deps, webhooks }),
  };
}
