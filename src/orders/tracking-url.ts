/**
 * A tracking link as it is kept (decision `tracking-url-normalised`): the carrier's https page,
 * parsed as a browser parses it (WHATWG URL) and kept in that parser's serialisation, so what is
 * stored, sent in webhooks and written into the buyer's mail is one unambiguous URL.
 */

/** Whether `text` holds a C0 or C1 control character or DEL: line breaks and tabs included (a URL parser drops them silently). */
const hasControl = (text: string): boolean =>
  [...text].some((char) => {
    const code = char.codePointAt(0)!;
    return code < 0x20 || (code >= 0x7f && code <= 0x9f);
  });
/** Quotes and angle brackets end an attribute or a tag wherever the link is written into markup. */
const QUOTES = /["'`<>]/;
/** The longest link kept, as the request schema's `maxLength` (percent-encoding may lengthen it). */
const MAX_LENGTH = 2000;

/** The normalised URL, or what is wrong with it (the detail of a `/trackingUrl` field error). */
export function normaliseTrackingUrl(input: string): { url: string } | { problem: string } {
  // Spaces and line breaks around a pasted link are the paste's, not the link's.
  const text = input.trim();
  if (hasControl(text)) return { problem: 'must not contain control characters (line breaks, tabs)' };
  if (QUOTES.test(text)) return { problem: 'must not contain quotes or angle brackets' };
  const url = URL.parse(text);
  if (url?.protocol !== 'https:') return { problem: 'must be an https URL (the carrier’s tracking page)' };
  if (url.username !== '' || url.password !== '')
    return { problem: 'must not carry a user name or password (`user:pass@`)' };
  if (url.href.length > MAX_LENGTH) return { problem: `must be at most ${MAX_LENGTH} characters` };
  return { url: url.href };
}
