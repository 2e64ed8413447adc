import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { tenantCouriers } from './repository.js';
import { toCourier, toWidgetCourier } from './views.js';
import { EXAMPLE_COURIER } from '../http/examples.js';
import { bothSurfaces } from '../http/surfaces.js';
import { scopeOf } from '../http/plugins/auth.js';
import { problems } from '../http/schemas.js';
import { Capabilities, Courier } from './schemas.js';

const { active_drivers: _drivers, operating_hours: _hours, capabilities, ...courierShown } = EXAMPLE_COURIER;
const { bank_name: _bank, bank_account_holder: _holder, bank_iban: _iban, ...capabilitiesShown } = capabilities;
const widgetCourier = { ...courierShown, capabilities: capabilitiesShown };

export const WidgetCourier = Courier.omit({ active_drivers: true, operating_hours: true })
  .extend({
    capabilities: Capabilities.omit({ bank_name: true, bank_account_holder: true, bank_iban: true }).optional(),
  })
  .meta({
    id: 'WidgetCourier',
    description: 'Courier trimmed for browsers: no active_drivers, operating_hours or bank account details.',
    examples: [widgetCourier],
  });

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, { pool }) => {
  const merchant = {
    tags: ['couriers'],
    operationId: 'listCouriers',
    summary: 'Courier companies available to the tenant',
  };
  const widget = { operationId: 'listWidgetCouriers', summary: 'Courier companies, trimmed for the browser' };
  // The widget's list is trimmed: WidgetCourier, not Courier.
  for (const surface of bothSurfaces('/couriers', merchant, widget)) {
    app.get(
      surface.url,
      {
        schema: {
          ...surface.schema,
          response: {
            200: z
              .object({ data: z.array(surface.widget ? WidgetCourier : Courier) })
              .meta({ examples: [{ data: [surface.widget ? widgetCourier : EXAMPLE_COURIER] }] }),
            ...problems(401, 429),
          },
        },
      },
      async (request) => ({
        data: (await tenantCouriers(pool, scopeOf(request))).map(surface.widget ? toWidgetCourier : toCourier),
      }),
    );
  }
};
export default routes;
