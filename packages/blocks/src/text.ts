/**
 * Checks for merchant-written strings and URLs in content (menus, pages, region blocks). Each
 * returns the problem as a sentence fragment for a FieldError's `detail`, or null when the value
 * is acceptable.
 */

/** Length in Unicode code points, the unit of JSON Schema `maxLength` and PostgreSQL `length()`. */
export function charLength(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

/** Where a URL is used: an image source, a link (button href) or a menu entry. */
export type UrlUse = 'image' | 'link' | 'menu';

const ALLOWED_SCHEMES: Record<UrlUse, readonly string[]> = {
  image: ['https'],
  link: ['https', 'http', 'mailto', 'tel'],
  menu: ['https', 'http'],
};

const WHAT_IS_ALLOWED: Record<UrlUse, string> = {
  image: 'must be an https URL or a relative URL',
  link: 'must be an http(s), mailto: or tel: URL, or a relative URL',
  menu: 'must be an http(s) URL or a path starting with /',
};

/** Schemes that run code or smuggle documents; never accepted anywhere. */
const DANGEROUS_SCHEMES = new Set(['javascript', 'data', 'vbscript']);

const NAMED_REFERENCES: Record<string, string> = { colon: ':', tab: '\t', newline: '\n', nbsp: '\u00a0' };

/** Decodes HTML character references (`&#106;`, `&#x6A;`, `&colon;`, …) once. */
function decodeCharacterReferences(value: string): string {
  return value
    .replace(
      /&#(?:x([0-9a-f]{1,6})|([0-9]{1,7}));?/gi,
      (_match, hex: string | undefined, dec: string | undefined) => {
        const codePoint = hex !== undefined ? Number.parseInt(hex, 16) : Number.parseInt(dec ?? '', 10);
        return codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : '';
      },
    )
    .replace(
      /&(colon|tab|newline|nbsp);/gi,
      (_match, name: string) => NAMED_REFERENCES[name.toLowerCase()] ?? '',
    );
}

/**
 * The scheme a browser could end up seeing. Browsers drop leading C0 controls and spaces and every
 * tab and newline inside a URL (`java\tscript:` is `javascript:`); to be safe this also ignores any
 * other whitespace, control or invisible formatting character anywhere, and HTML character
 * references (in case the value is ever pasted into markup unescaped).
 */
export function effectiveScheme(value: string): string | null {
  const squeezed = decodeCharacterReferences(value).replace(/[\p{Cc}\p{Cf}\p{Z}\s]/gu, '');
  const match = /^([a-z][a-z0-9+.-]*):/i.exec(squeezed);
  return match ? match[1]!.toLowerCase() : null;
}

/**
 * URL rules for content: `javascript:`, `data:` and `vbscript:` are refused however they are
 * disguised; whitespace, control characters and backslashes are refused (browsers rewrite them);
 * protocol-relative `//host` is refused; absolute URLs need an allowed scheme for their use, and
 * http(s) URLs need a host and no credentials. Relative URLs are accepted (menus: paths only).
 */
export function urlProblem(value: string, use: UrlUse): string | null {
  if (value === '') return 'must not be empty';
  const disguised = effectiveScheme(value);
  if (disguised !== null && DANGEROUS_SCHEMES.has(disguised)) return `must not be a ${disguised}: URL`;
  if (/[\p{Cc}\p{Z}\s]/u.test(value))
    return 'must not contain spaces or control characters (percent-encode them)';
  if (value.includes('\\')) return 'must not contain backslashes';

  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1]?.toLowerCase() ?? null;
  if (scheme === null) {
    if (value.startsWith('//')) return 'must not be protocol-relative (//host); write the https:// URL';
    if (use === 'menu' && !value.startsWith('/')) return WHAT_IS_ALLOWED.menu;
    return null;
  }
  if (!ALLOWED_SCHEMES[use].includes(scheme)) return WHAT_IS_ALLOWED[use];
  if (scheme === 'http' || scheme === 'https') {
    if (!/^https?:\/\/[^/]/i.test(value)) return `must be written as ${scheme}://host/…`;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return 'is not a valid URL';
    }
    if (url.hostname === '') return 'must name a host';
    if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
    return null;
  }
  return value.length > scheme.length + 1 ? null : `must have something after ${scheme}:`;
}
