/** Wording shared by the pages: dates, and what an email address must look like before it is sent. */

/** A date as the shopper's locale writes it ("Nov 29, 2026"). */
export const day = (iso: string): string =>
  new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' });

/** Something@something: the check the forms make before the service makes its own. */
export const EMAIL = /^[^\s@]+@[^\s@]+$/;
