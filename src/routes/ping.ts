// A diagnostic round trip through every component: API -> Temporal -> worker -> activity -> Postgres.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { AppDeps } from '../app.js';
import { problems } from '../schemas.js';

const routes: FastifyPluginAsyncZod<AppDeps> = async (app, { temporal, config }) => {
  app.post(
    '/v1/diagnostics/round_trip',
    {
      schema: {
        tags: ['system'],
        operationId: 'roundTrip',
        summary: 'Runs a workflow that writes through an activity to Postgres, and waits for it',
        response: { 200: z.object({ id: z.uuid(), workflow_id: z.string(), written_at: z.string() }), ...problems(401, 429) },
      },
    },
    async (request) => {
      const id = randomUUID();
      const workflowId = `ping-${id}`;
      const result = await temporal.workflow.execute('pingWorkflow', {
        taskQueue: config.taskQueue,
        workflowId,
        args: [{ id, message: `round trip from ${request.id}` }],
        workflowExecutionTimeout: '30s',
      });
      return { id: (result as { id: string }).id, workflow_id: workflowId, written_at: (result as { written_at: string }).written_at };
    },
  );
};
export default routes;
