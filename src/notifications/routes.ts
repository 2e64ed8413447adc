// Recipients' notifications for the merchant (secret key or dashboard session; design.md "Recipients hear from the
// service", docs/recipients.md): the settings of the key's mode (GET/PUT /v1/settings/notifications) and a delivery's
// message log (GET /v1/deliveries/{delivery_id}/notifications). Not on the widget surface: the log holds the messages'
// text, the recipient link among it.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../platform/deps.js';
import { scopeOf } from '../http/plugins/auth.js';
import { notFound } from '../http/problem.js';
import { problems } from '../http/schemas.js';
import { deliveryNotifications } from './log-repository.js';
import { DeliveryIdParam, NotificationList, NotificationSettings, NotificationSettingsChange } from './schemas.js';
import { changeNotificationSettings, notificationSettingsOf } from './settings.js';
import { toNotification } from './views.js';

type App = Parameters<FastifyPluginAsyncZod<AppDeps>>[0];

function settingsRoutes(app: App, { pool, config }: AppDeps) {
  app.get(
    '/v1/settings/notifications',
    {
      schema: {
        tags: ['settings'],
        operationId: 'getNotificationSettings',
        summary: 'SMS to recipients: on or off, the language, the sender id',
        description:
          'The settings of the key’s mode. A mode never changed has the defaults: SMS off in live mode and on in test mode ' +
          "(sent to the SMSC simulator), pt-AO, the service's sender id.",
        response: { 200: NotificationSettings, ...problems(401, 429) },
      },
    },
    async (request) => notificationSettingsOf(pool, config, scopeOf(request)),
  );

  app.put(
    '/v1/settings/notifications',
    {
      schema: {
        tags: ['settings'],
        operationId: 'updateNotificationSettings',
        summary: 'Change the SMS settings',
        description:
          'Changes the fields sent; the others keep their values (sender_id null: back to the service’s sender). Each mode ' +
          'has its own settings: a test key changes the test ones. Messages already in the log keep their text.',
        body: NotificationSettingsChange,
        response: { 200: NotificationSettings, ...problems(401, 422, 429) },
      },
    },
    async (request) => changeNotificationSettings(pool, config, scopeOf(request), request.body),
  );
}

function logRoute(app: App, { pool }: AppDeps) {
  app.get(
    '/v1/deliveries/:delivery_id/notifications',
    {
      schema: {
        tags: ['deliveries'],
        operationId: 'listDeliveryNotifications',
        summary: "A delivery's messages to its recipient, oldest first",
        description:
          'One message per delivery event and channel, with its text, encoding, length in segments and where it stands ' +
          '(queued, submitted, delivered, failed, or not_sent with the reason). The phone is masked.',
        params: DeliveryIdParam,
        response: { 200: NotificationList, ...problems(401, 404, 429) },
      },
    },
    async (request) => {
      const rows = await deliveryNotifications(pool, scopeOf(request), request.params.delivery_id);
      if (!rows) throw notFound();
      return { object: 'list' as const, data: rows.map(toNotification) };
    },
  );
}

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, deps) => {
  settingsRoutes(app, deps);
  logRoute(app, deps);
};
export default routes;
