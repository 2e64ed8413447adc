// The API's shapes the widget sends and reads, from the client generated from the OpenAPI document
// (clients/typescript, `npm run client:generate`): type-only, so nothing of the client reaches the bundle.
import type { components, operations } from '../../clients/typescript/src/index';

type Schemas = components['schemas'];
export type Address = Schemas['Address'];
export type Parcel = Schemas['Parcel'];
/** The body of POST /v1/widget/quotes: the booking sends the same origin, destination and parcel. */
export type QuoteBody = Schemas['QuoteRequest'];
export type Quote = Schemas['QuoteEntry'];
export type QuoteList = operations['createWidgetQuotes']['responses'][200]['content']['application/json'];
export type DeliveryRequest = operations['createWidgetDelivery']['requestBody']['content']['application/json'];
/**
 * The widget reads a delivery only from its creation answer (the full view). `GET /v1/widget/deliveries/{id}` without
 * the client secret is trimmed (addresses of city and province only, no contact, PIN or parcel description): the
 * widget uses that route only as a probe of its key and origin and reads nothing from its body.
 */
export type Delivery = Schemas['WidgetCreatedDelivery'];
export type FieldProblem = Schemas['FieldError'];
