import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../app.js';
import { tenantCouriers, toCourier, toWidgetCourier } from '../couriers/repository.js';
import { tenantOf } from '../plugins/auth.js';
import { Courier, problems } from '../schemas.js';

export const WidgetCourier = z
  .object({
    id: z.uuid(),
    name: z.string(),
    slug: z.string().optional(),
    logo_url: z.string().nullable().optional(),
    base_fee_aoa: z.number().int().nullable().optional(),
    base_eta_minutes: z.number().int().nullable().optional(),
    service_zones: z.array(z.string()).optional(),
    capabilities: z
      .object({
        bank_transfer_enabled: z.boolean(),
        max_weight_grams: z.number().int().nullable(),
        parcel_types: z.array(z.string()).nullable(),
        require_delivery_pin: z.boolean(),
      })
      .optional(),
  })
  .meta({ id: 'WidgetCourier', description: 'Courier trimmed for browsers: no active_drivers, operating_hours or bank account details.' });

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, { pool }) => {
  app.get(
    '/v1/couriers',
    { schema: { tags: ['couriers'], operationId: 'listCouriers', summary: 'Courier companies available to the tenant', response: { 200: z.object({ data: z.array(Courier) }), ...problems(401, 429) } } },
    async (request) => ({ data: (await tenantCouriers(pool, tenantOf(request))).map(toCourier) }),
  );

  app.get(
    '/v1/widget/couriers',
    {
      schema: {
        tags: ['widget'],
        operationId: 'listWidgetCouriers',
        summary: 'Courier companies, trimmed for the browser',
        security: [{ publishableKey: [] }],
        response: { 200: z.object({ data: z.array(WidgetCourier) }), ...problems(401, 429) },
      },
    },
    async (request) => ({ data: (await tenantCouriers(pool, tenantOf(request))).map(toWidgetCourier) }),
  );
};
export default routes;
