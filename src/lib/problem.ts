// RFC 9457 problem details. Every 4xx/5xx the API sends is one of these.

export interface FieldError {
  /** JSON Pointer into the request body, e.g. `/parcel/weight_grams`. */
  pointer?: string;
  /** Name of the query or path parameter at fault. */
  parameter?: string;
  code: string;
  detail: string;
}

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  406: 'Not acceptable',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Validation error',
  429: 'Too many requests',
  500: 'Internal server error',
  502: 'Bad gateway',
  503: 'Service unavailable',
};

export const titleFor = (status: number): string => TITLES[status] ?? 'Error';

/** An error the API answers with on purpose: status, machine-readable code, human detail. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

export const notFound = (what = 'Delivery') => new ApiError(404, 'not_found', `${what} not found.`);
export const unauthorized = (detail = 'Missing or invalid API key.') => new ApiError(401, 'unauthorized', detail);
export const validationFailed = (errors: FieldError[], detail?: string) =>
  new ApiError(422, 'validation_failed', detail ?? errors.map((e) => e.detail).join(' '), errors);

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  error: string;
  errors?: FieldError[];
  instance?: string;
}

export function problemBody(baseUrl: string, status: number, code: string, detail: string, errors?: FieldError[]): ProblemBody {
  const body: ProblemBody = {
    type: `${baseUrl}/errors/${code}`,
    title: status === 422 && code !== 'validation_failed' ? titleFor(422) : titleFor(status),
    status,
    detail,
    error: code,
  };
  if (errors && errors.length > 0) body.errors = errors;
  return body;
}
