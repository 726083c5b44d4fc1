/** One field-level problem: a JSON Pointer (RFC 6901) into the part of the request named by `in`. */
export interface FieldError {
  pointer: string;
  detail: string;
  in?: 'body' | 'query' | 'path' | 'header';
}

/**
 * The one error family of the service. Domain code throws these; the error handler turns them into
 * `application/problem+json` (RFC 9457) with `title` as the stable machine-readable code.
 */
export class AppError extends Error {
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    title: string,
    status: number,
    detail: string,
    options: {
      errors?: FieldError[];
      headers?: Record<string, string>;
    } = {},
  ) {
    super(detail);
    this.name = 'AppError';
    this.title = title;
    this.status = status;
    this.detail = detail;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }
}

export const validationFailed = (detail: string, errors?: FieldError[]): AppError =>
  new AppError('validation_failed', 400, detail, errors ? { errors } : {});
/**
 * 401 with its `WWW-Authenticate` challenge (RFC 9110 requires one): `Bearer realm="<realm>"`, plus
 * `error="invalid_token"` (RFC 6750) when a credential was sent but is not valid.
 */
export const unauthorized = (
  detail: string,
  realm: 'storefront' | 'admin' | 'metrics',
  invalidToken = false,
): AppError =>
  new AppError('unauthorized', 401, detail, {
    headers: {
      'www-authenticate': `Bearer realm="${realm}"${invalidToken ? ', error="invalid_token"' : ''}`,
    },
  });
export const forbidden = (detail: string): AppError => new AppError('forbidden', 403, detail);
export const notFound = (detail: string): AppError => new AppError('not_found', 404, detail);
