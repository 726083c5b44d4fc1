import { domainToASCII } from 'node:url';

/** Domain names and local parts of sending identities: normalisation and validation. */

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
/** A top-level label: letters, or an IDNA (xn--) label; never all digits (that is an IP address). */
const TOP_LABEL = /^([a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;
/** Characters that mean the input is a URL, an address or a path rather than a domain name. */
const NOT_A_NAME = /[\s/\\:@?#%[\]]/;

/**
 * The canonical form of a domain name, used for storage and the global uniqueness check: IDNA
 * (UTS #46) mapped to ASCII, lower case, without a trailing dot. Returns the reason when the input
 * is not a hostname of at least two valid labels.
 */
export function normalizeDomain(input: string): { domain: string } | { error: string } {
  const raw = input.trim();
  if (raw === '') return { error: 'is required' };
  if (NOT_A_NAME.test(raw))
    return { error: 'must be a bare domain name such as example.com (no scheme or path)' };
  const ascii = domainToASCII(raw.endsWith('.') ? raw.slice(0, -1) : raw);
  if (ascii === '') return { error: 'is not a valid domain name' };
  if (ascii.length > 253) return { error: 'is longer than 253 characters' };
  const labels = ascii.split('.');
  if (labels.length < 2) return { error: 'must have at least two labels, such as example.com' };
  if (!labels.every((label) => LABEL.test(label))) {
    return {
      error:
        'has an invalid label: use letters, digits and hyphens, at most 63 characters, not starting or ending with a hyphen',
    };
  }
  if (!TOP_LABEL.test(labels.at(-1)!)) return { error: 'does not end in a valid top-level domain' };
  return { domain: ascii };
}

/** RFC 5321 dot-atom: atext runs separated by single dots (quoted local parts are not accepted). */
const DOT_ATOM = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+(\.[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+)*$/;

export function localPartError(localPart: string): string | null {
  if (localPart.length === 0) return 'is required';
  if (localPart.length > 64) return 'is longer than 64 characters';
  if (!DOT_ATOM.test(localPart)) {
    return "must be a dot-atom: letters, digits and !#$%&'*+-/=?^_`{|}~, separated by single dots";
  }
  return null;
}

/** Whether `domain` is `parent` or a name under it. */
export function isWithin(domain: string, parent: string): boolean {
  return domain === parent || domain.endsWith(`.${parent}`);
}
