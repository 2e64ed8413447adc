// The control API under /_control (docs/quotes.md "Courier simulator"): change a company's behaviour at run time,
// read its bookings, and send single fleet events on demand.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { send } from './protocol.js';
import { HttpError, type Simulation } from './simulation.js';
import type { SentEvent } from './types.js';

type Slug = { Params: { slug: string } };
/** The JSON body as sent: the simulation checks what it needs. */
const bodyOf = (request: FastifyRequest): any => request.body;

export function controlRoutes(app: FastifyInstance, sim: Simulation): void {
  const control = sim.control();
  /** An event the receiver did not take answers 502. */
  const result = (sent: SentEvent) => [sent.response_status === null ? 502 : 200, sent] as const;

  app.get('/_control/companies', (_request, reply) => send(reply, 200, { data: control.companies() }));
  app.post('/_control/companies', (request, reply) => {
    sim.upsert(bodyOf(request));
    return send(
      reply,
      201,
      control.companies().find((c) => c.slug === bodyOf(request).slug),
    );
  });
  app.get<Slug>('/_control/:slug', (request, reply) => {
    const { slug } = request.params;
    return send(reply, 200, {
      config: sim.company(slug).config,
      stats: control.stats(slug),
      bookings: sim.company(slug).bookings.size,
    });
  });
  for (const method of ['PATCH', 'POST'] as const) {
    app.route<Slug>({
      method,
      url: '/_control/:slug',
      handler: (request, reply) => send(reply, 200, control.configure(request.params.slug, bodyOf(request) ?? {})),
    });
  }
  app.put<Slug>('/_control/:slug', (request, reply) => {
    sim.upsert({ ...bodyOf(request), slug: request.params.slug });
    return send(reply, 200, sim.company(request.params.slug).config);
  });
  app.post<Slug>('/_control/:slug/reset', (request, reply) => send(reply, 200, control.reset(request.params.slug)));
  app.get<Slug>('/_control/:slug/bookings', (request, reply) =>
    send(reply, 200, { data: control.bookings(request.params.slug) }),
  );
  app.get<{ Params: { slug: string; ref: string } }>('/_control/:slug/bookings/:ref', (request, reply) =>
    send(reply, 200, sim.bookingOf(request.params.slug, request.params.ref)),
  );
  app.post<Slug>('/_control/:slug/events', async (request, reply) =>
    send(reply, ...result(await control.sendEvent(request.params.slug, bodyOf(request)))),
  );
  app.post<Slug>('/_control/:slug/deliver', async (request, reply) => {
    const body = bodyOf(request);
    if (typeof body?.tracking_ref !== 'string')
      throw new HttpError(422, 'tracking_ref_required', 'tracking_ref is required');
    const pin = typeof body.pin === 'string' ? body.pin : undefined;
    return send(reply, ...result(await control.deliver(request.params.slug, body.tracking_ref, pin)));
  });
  // Cash on delivery: report the delivered cash jobs as one signed remittance ({tracking_refs?, fee_deducted_aoa?, ...}).
  app.post<Slug>('/_control/:slug/remit', async (request, reply) =>
    send(reply, 200, await control.remit(request.params.slug, bodyOf(request) ?? {})),
  );
  app.post<Slug>('/_control/:slug/pins', async (request, reply) => {
    const body = bodyOf(request);
    if (typeof body?.tracking_ref !== 'string' || typeof body?.pin !== 'string')
      throw new HttpError(422, 'pin_required', 'tracking_ref and pin are required');
    const sent = await control.setPin(request.params.slug, body.tracking_ref, body.pin);
    return send(reply, 200, { pin_set: true, delivered_event: sent });
  });
}
