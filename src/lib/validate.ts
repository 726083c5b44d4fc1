/** Small validators shared by the CLI and the services (HTTP input is also checked by schemas). */

export const SLUG_PATTERN = '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$';
const SLUG = new RegExp(SLUG_PATTERN);

/** A pragmatic address check: one @, a dot-atom-ish local part, a hostname with a dot. */
const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export function isSlug(value: string): boolean {
  return SLUG.test(value);
}

export function isEmail(value: string): boolean {
  return EMAIL.test(value) && !value.startsWith('.') && !value.includes('..');
}

export function isCurrency(value: string): boolean {
  return /^[A-Z]{3}$/.test(value);
}

/**
 * Normalises a browser origin (`scheme://host[:port]`, no path, query, fragment, credentials or
 * wildcard) to the exact form browsers send in the Origin header; null when it is not one.
 */
export function normalizeOrigin(value: string): string | null {
  if (/[*?#\s]/.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password || url.search || url.hash || url.pathname !== '/' || value.endsWith('/')) {
    return null;
  }
  return url.origin;
}
