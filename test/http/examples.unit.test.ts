// The examples the OpenAPI document shows (src/http/examples.ts, attached with `.meta({ examples })`) are valid
// instances of their own schemas: a reader who copies one gets a request the API accepts, and a response example is
// what the API answers with. Every schema registered with an id is visited, so a new one is checked too.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
// Loading the schema modules registers their schemas (ids) in zod's global registry.
import '../../src/deliveries/schemas.js';
import '../../src/keys/schemas.js';
import '../../src/quotes/schemas.js';
import '../../src/couriers/routes.js';
import '../../src/tenants/dispatch-policy.js';
import '../../src/users/schemas.js';
import '../../src/webhooks/schemas.js';
import '../../src/notifications/schemas.js';
import { CreateDeliveryBody } from '../../src/deliveries/schemas.js';
import { QuoteRequestBody } from '../../src/quotes/schemas.js';
import { CreateEndpointBody, UpdateEndpointBody } from '../../src/webhooks/schemas.js';
import { NotificationSettingsChange } from '../../src/notifications/schemas.js';

const examplesOf = (schema: z.ZodType): unknown[] => (schema.meta()?.examples as unknown[] | undefined) ?? [];

describe('OpenAPI examples', () => {
  const registered = [...z.globalRegistry._idmap.entries()] as [string, z.ZodType][];

  it('the registry holds the resources of the spec', () => {
    const ids = registered.map(([id]) => id);
    for (const id of ['Delivery', 'WidgetDelivery', 'TrackingView', 'Address', 'Parcel', 'Courier', 'WebhookEndpoint'])
      expect(ids).toContain(id);
  });

  it('every example of a registered schema parses with it', () => {
    const failures: string[] = [];
    for (const [id, schema] of registered) {
      for (const example of examplesOf(schema)) {
        const result = schema.safeParse(example);
        if (!result.success)
          failures.push(`${id}: ${result.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('the request examples are requests the API accepts', () => {
    for (const schema of [
      CreateDeliveryBody,
      QuoteRequestBody,
      CreateEndpointBody,
      UpdateEndpointBody,
      NotificationSettingsChange,
    ]) {
      const examples = examplesOf(schema);
      expect(examples.length).toBeGreaterThan(0);
      for (const example of examples) expect(schema.safeParse(example).error).toBeUndefined();
    }
  });
});
