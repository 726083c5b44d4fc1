/**
 * The security headers of every HTML page the service serves (the console at /admin, the shop at
 * /shop, the API reference at /docs, the sandbox's hosted payment page), in one place so that the
 * pages differ only where their content does: in their Content-Security-Policy's sources.
 *
 * Every page: nothing from another origin unless its policy names it, no plugins, no `<base>`, no
 * framing (CSP `frame-ancestors 'none'` and, for browsers that predate it, `X-Frame-Options: DENY`),
 * no MIME sniffing, no referrer, its own browsing-context group, no camera, microphone, location or
 * payment APIs. Their scripts and styles answer with the same headers (harmless on a script, and
 * `nosniff` is what keeps a script a script).
 */

/** The fetch directives of a page; each page names the sources it needs. */
export interface CspSources {
  'default-src': readonly string[];
  'script-src'?: readonly string[];
  'style-src'?: readonly string[];
  'img-src'?: readonly string[];
  'font-src'?: readonly string[];
  'connect-src'?: readonly string[];
  'worker-src'?: readonly string[];
  /** Where the page's forms may post: this origin unless named. */
  'form-action'?: readonly string[];
}

/** The policy's text: the page's sources, then what every page forbids. */
export function contentSecurityPolicy(sources: CspSources): string {
  const directives: [string, readonly string[]][] = [
    ...(Object.entries(sources) as [string, readonly string[]][]).filter(([name]) => name !== 'form-action'),
    ['object-src', ["'none'"]],
    ['base-uri', ["'none'"]],
    ['form-action', sources['form-action'] ?? ["'self'"]],
    ['frame-ancestors', ["'none'"]],
  ];
  return directives.map(([name, values]) => `${name} ${values.join(' ')}`).join('; ');
}

/** The headers of an HTML page (or one of its assets) with this policy. */
export function pageSecurityHeaders(csp: string): Record<string, string> {
  return {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
  };
}
