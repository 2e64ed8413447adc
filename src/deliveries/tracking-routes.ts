// Public tracking, no authentication: reference, status and the event timeline (types and times only).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { findDeliveryWithEvents } from './repository.js';
import { TrackingView } from './schemas.js';
import { toTracking } from './views.js';
import { notFound } from '../http/problem.js';
import { problems } from '../http/schemas.js';

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, { pool }) => {
  app.get(
    '/v1/deliveries/:delivery_id/tracking',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['tracking'],
        operationId: 'getDeliveryTracking',
        summary: 'Public tracking view of a delivery',
        security: [],
        params: z.object({ delivery_id: z.uuid() }),
        response: { 200: TrackingView, ...problems(404, 429) },
      },
    },
    async (request) => {
      const found = await findDeliveryWithEvents(pool, null, request.params.delivery_id);
      if (!found) throw notFound();
      return toTracking(found.delivery, found.events);
    },
  );
};
export default routes;
