// Routes offered on both surfaces: the merchant's `/v1<path>` (secret key) and its widget twin `/v1/widget<path>`
// (publishable key + allowed Origin; plugins/auth.ts picks the key kind from the path). A route module registers
// both in one loop, `for (const surface of bothSurfaces(...)) app.post(surface.url, ...)`, and branches on
// `surface.widget` where the widget's answer differs (e.g. a trimmed response).

/** What names a route in the OpenAPI document. */
interface Naming {
  tags: string[];
  operationId: string;
  summary: string;
}

/** The merchant route's URL and naming, then the widget's: tag `widget`, its own operation id and summary. */
export function bothSurfaces(path: string, merchant: Naming, widget: Omit<Naming, 'tags'>) {
  return [
    { url: `/v1${path}`, widget: false, schema: merchant },
    {
      url: `/v1/widget${path}`,
      widget: true,
      schema: { tags: ['widget'], ...widget, security: [{ publishableKey: [] }] },
    },
  ] as const;
}
