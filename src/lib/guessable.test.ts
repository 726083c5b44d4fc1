import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { estimatedBits, GUESSABLE_BELOW_BITS } from './guessable.ts';

describe('estimatedBits', () => {
  test('a repeated character, a repeated unit and a small alphabet are guessable', () => {
    assert.equal(estimatedBits('s'.repeat(40)), 0);
    // `change-me-` repeated, cut short: its unit is 10 characters of 8 kinds.
    assert.equal(estimatedBits('change-me-change-me-change-me-change-me'), 30);
    assert.ok(estimatedBits('abc123'.repeat(8)) < 16);
    assert.ok(estimatedBits('01101010'.repeat(5)) < GUESSABLE_BELOW_BITS);
  });

  test('random values of every length the configuration accepts are not', () => {
    for (let i = 0; i < 500; i++) {
      for (const value of [
        randomBytes(16).toString('hex'), // 32 characters, 128 bits
        randomBytes(32).toString('hex'),
        randomBytes(24).toString('base64url'), // 32 characters
        randomBytes(48).toString('base64'), // `openssl rand -base64 48`
      ])
        assert.ok(estimatedBits(value) >= GUESSABLE_BELOW_BITS, value);
    }
  });
});
