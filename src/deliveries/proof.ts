// Proof of delivery (design.md "Attempts, returns and proof of delivery"): what a courier may attach to its
// `delivered` fleet event (`payload.proof`), kept with the event and shown to the merchant as the delivery's
// `proof_of_delivery` (src/deliveries/views.ts). Never on the widget or tracking views. The URLs are https links the
// courier hosts: the service stores them and never fetches them.
import { z } from 'zod';
import { EXAMPLE_PROOF_OF_DELIVERY } from '../http/examples.js';

const HttpsUrl = z
  .url({ protocol: /^https$/, error: 'must be an https:// URL' })
  .max(2000)
  .meta({
    format: 'uri',
    pattern: '^https://',
    description: 'an https:// link the courier hosts; never fetched by the service',
  });

/** Every field is optional, and at least one is present; anything else is refused (422 `unknown_field`). */
export const ProofOfDelivery = z
  .strictObject({
    recipient_name: z.string().min(1).max(200).optional().describe('who took the parcel, as the driver wrote it'),
    photo_url: HttpsUrl.optional().describe('a photo of the parcel handed over (https; never fetched by the service)'),
    signature_url: HttpsUrl.optional().describe("an image of the recipient's signature (https; never fetched)"),
    location: z
      .strictObject({ lat: z.number().min(-90).max(90), lng: z.number().min(-180).max(180) })
      .optional()
      .describe('where the parcel was handed over'),
  })
  .refine((p) => Object.keys(p).length > 0, {
    message: 'proof names at least one of recipient_name, photo_url, signature_url, location',
    params: { code: 'required' },
  })
  .meta({ id: 'ProofOfDelivery', examples: [EXAMPLE_PROOF_OF_DELIVERY] });
export type ProofOfDelivery = z.infer<typeof ProofOfDelivery>;
