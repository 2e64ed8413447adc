// The dashboard talks to the same /v1 routes as a merchant's server, through the typed client generated from the
// OpenAPI document (clients/typescript), authorised by the session cookie instead of a key: every call sends the
// session's CSRF token and the mode (live or test). Only sign-in, sign-out and the password link use the
// dashboard's own routes (/dashboard/api/*).
import { createClient, type components, type operations, type Problem } from '../../../clients/typescript/src/index';

export type { Delivery, Problem, QuoteEntry } from '../../../clients/typescript/src/index';
export type ApiKey = components['schemas']['ApiKey'];
export type User = components['schemas']['User'];
export type Role = User['role'];
export type CodRemittance = components['schemas']['CodRemittance'];
export type CodBalance = components['schemas']['CodBalances']['data'][number];

export interface Session {
  user: { id: string; email: string; role: Role };
  tenant: { id: string; name: string };
  csrf_token: string;
  expires_at: string;
}

/** A problem+json answer (or a network failure, status 0) as an error to throw and show. */
export class ApiProblem extends Error {
  constructor(readonly problem: Pick<Problem, 'status' | 'detail'> & Partial<Problem>) {
    super(problem.detail);
  }
  get status() {
    return this.problem.status;
  }
}

let csrfToken: string | null = null;
let mode: 'live' | 'test' = 'live';
let onSessionEnded: (detail: string) => void = () => {};

export const setCsrfToken = (token: string | null) => (csrfToken = token);
export const setMode = (value: 'live' | 'test') => (mode = value);
/** Called when a call answers 401: the session expired or was ended (signed out elsewhere, user removed). */
export const handleSessionEnded = (fn: (detail: string) => void) => (onSessionEnded = fn);

export const NETWORK_ERROR = 'network';

export const api = createClient({
  baseUrl: location.origin,
  maxRetries: 1,
  fetch: (request) => {
    if (csrfToken) request.headers.set('X-CSRF-Token', csrfToken);
    request.headers.set('Dashboard-Mode', mode);
    return fetch(request);
  },
});

/** The data of a client call, or throws ApiProblem; a 401 also ends the session in the app. */
export async function call<T>(promise: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await promise;
  } catch {
    throw new ApiProblem({ status: 0, detail: NETWORK_ERROR });
  }
  if (result.error !== undefined || !result.response.ok) {
    const problem = (result.error ?? {}) as Partial<Problem>;
    const error = new ApiProblem({
      ...problem,
      status: result.response.status,
      detail: problem.detail ?? result.response.statusText,
    });
    if (result.response.status === 401) onSessionEnded(error.problem.detail);
    throw error;
  }
  return result.data as T;
}

async function own<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`/dashboard/api/${path}`, {
      method,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(csrfToken ? { 'x-csrf-token': csrfToken } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiProblem({ status: 0, detail: NETWORK_ERROR });
  }
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : null;
  if (!response.ok)
    throw new ApiProblem({ ...(parsed ?? {}), status: response.status, detail: parsed?.detail ?? response.statusText });
  return parsed as T;
}

/**
 * A /v1 GET answered in another format than JSON (`Accept: text/csv`: the cash-on-delivery statement), with the
 * dashboard's mode, as a Blob; throws ApiProblem like call().
 */
export async function fetchBlob(path: string, accept: string): Promise<Blob> {
  let response: Response;
  try {
    response = await fetch(path, {
      headers: { accept, 'Dashboard-Mode': mode, ...(csrfToken ? { 'X-CSRF-Token': csrfToken } : {}) },
    });
  } catch {
    throw new ApiProblem({ status: 0, detail: NETWORK_ERROR });
  }
  if (!response.ok) {
    const problem = (await response.json().catch(() => ({}))) as Partial<Problem>;
    const error = new ApiProblem({
      ...problem,
      status: response.status,
      detail: problem.detail ?? response.statusText,
    });
    if (response.status === 401) onSessionEnded(error.problem.detail);
    throw error;
  }
  return response.blob();
}

export const currentSession = () => own<Session>('GET', 'session');
/** The teams an email and password open when there are several: sign in again naming one (`tenantId`). */
export interface TeamChoice {
  tenants: Array<{ id: string; name: string }>;
}
export const signIn = (email: string, password: string, tenantId?: string) =>
  own<Session | TeamChoice>('POST', 'session', { email, password, ...(tenantId ? { tenant_id: tenantId } : {}) });
export const signOut = () => own<null>('DELETE', 'session');
export const setPassword = (token: string, password: string) => own<null>('POST', 'password', { token, password });

// The last mile (#29): proof of delivery, returns to sender, a stalled delivery's recovery, the order-number and phone
// filters, max_delivery_attempts; all typed by the generated client.
type FullDelivery = components['schemas']['Delivery'];
export type RecoveryAction = NonNullable<FullDelivery['recovery']>['actions'][number];
export type ProofOfDelivery = components['schemas']['ProofOfDelivery'];
export type LastMile = Pick<FullDelivery, 'proof_of_delivery' | 'return_of' | 'return_delivery_id' | 'recovery'>;
export type RecoverBody = components['schemas']['RecoverDelivery'];
export type DispatchSettings = components['schemas']['DispatchPolicy'];

export const recoverDelivery = (id: string, body: RecoverBody) =>
  call(api.POST('/v1/deliveries/{id}/recover', { params: { path: { id } }, body }));
/** POST /v1/deliveries/{id}/return: 201 with the return delivery. */
export const returnDelivery = (id: string) =>
  call(api.POST('/v1/deliveries/{id}/return', { params: { path: { id } }, body: {} }));
type ListQuery = NonNullable<operations['listDeliveries']['parameters']['query']>;
/** GET /v1/deliveries with its filters (`metadata[key]`, `recipient_phone` among them). */
export const listDeliveries = (query: ListQuery) => call(api.GET('/v1/deliveries', { params: { query } }));
type DeliveryPage = operations['listDeliveries']['responses'][200]['content']['application/json'];
/** A row of the list, with its metadata (the order id). */
export type DeliveryRow = DeliveryPage['data'][number];
/** PUT /v1/settings/dispatch with the fields to change (max_delivery_attempts among them). */
export const saveDispatchSettings = (body: components['schemas']['DispatchPolicyChange']) =>
  call(api.PUT('/v1/settings/dispatch', { body }));

// Recipients' SMS (#30): the notification settings of the dashboard's mode and a delivery's message log.
export type NotificationSettings = components['schemas']['NotificationSettings'];
export type NotificationSettingsChange = components['schemas']['NotificationSettingsChange'];
export type Notification = components['schemas']['Notification'];
/** PUT /v1/settings/notifications with the fields to change. */
export const saveNotificationSettings = (body: NotificationSettingsChange) =>
  call(api.PUT('/v1/settings/notifications', { body }));
// The shop profile (#31): the account's name and help contact on the tracking page, one for both modes.
export type ShopProfile = components['schemas']['ShopProfile'];
export type ShopProfileChange = components['schemas']['ShopProfileChange'];
export const saveShopProfile = (body: ShopProfileChange) => call(api.PUT('/v1/settings/shop', { body }));
/** PATCH /v1/api_keys/{id}: a publishable key's allowed origins and widget payment rules. */
export type ApiKeyChange = NonNullable<operations['updateApiKey']['requestBody']>['content']['application/json'];
export const updateApiKey = (id: string, body: ApiKeyChange) =>
  call(api.PATCH('/v1/api_keys/{id}', { params: { path: { id } }, body }));
/** GET /v1/deliveries/{delivery_id}/notifications: the messages to the recipient, oldest first. */
export const deliveryNotifications = (id: string) =>
  call(api.GET('/v1/deliveries/{delivery_id}/notifications', { params: { path: { delivery_id: id } } }));
