import { randomInt } from 'node:crypto';
import { safeEqual, sha256Hex } from '../lib/crypto.ts';

/**
 * Gift card codes (decision `gift-card-codes`): 16 characters from 32 that cannot be mistaken for
 * one another (no 0/O, no 1/I), so 80 random bits, written `XXXX-XXXX-XXXX-XXXX`. Only the SHA-256
 * of the normal form is kept: 2^80 codes are out of reach of an offline search, so no key is
 * needed, and an archive's hashes keep working in any service it is imported into.
 */
export const CODE_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
const CODE_LENGTH = 16;
const NORMAL_CODE = new RegExp(`^[${CODE_ALPHABET}]{${CODE_LENGTH}}$`);

/** A fresh code, crypto random (randomInt is unbiased), grouped by 4. */
export function newCode(): string {
  let out = '';
  for (let i = 0; i < CODE_LENGTH; i++) out += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return out.match(/.{4}/g)!.join('-');
}

/**
 * The normal form of a typed code: upper case, without spaces or dashes; null when it cannot be a
 * code (wrong length or a character outside the alphabet).
 */
export function normalCode(typed: string): string | null {
  const code = typed.toUpperCase().replace(/[\s-]+/g, '');
  return NORMAL_CODE.test(code) ? code : null;
}

/** What a code is stored and looked up as. */
export const codeHash = (normal: string): string => sha256Hex(`gift-card:${normal}`);

export const lastFour = (normal: string): string => normal.slice(-4);

/** Compared against when no card has the hash, so a miss costs what a hit costs. */
const NO_HASH = '0'.repeat(64);

/** Whether a stored hash (or none) is the hash looked up, in constant time. */
export const hashMatches = (stored: string | undefined, wanted: string): boolean =>
  safeEqual(stored ?? NO_HASH, wanted) && stored !== undefined;
