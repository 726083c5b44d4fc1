import assert from 'node:assert/strict';
import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { deriveKey, Keyring, SecretUnreadableError } from './keyring.ts';

const root = (name: string) => ({ name, secret: randomBytes(32) });

describe('Keyring (decision `keyring`)', () => {
  test('seals with the first root and opens with any; the row context is bound', () => {
    const old = root('old');
    const current = root('current');
    const before = new Keyring([old]);
    const sealed = before.seal('p', 'whsec_abc', 'store:1');
    assert.ok(Keyring.isSealed(sealed));
    assert.doesNotMatch(sealed, /whsec_abc/);
    assert.equal(before.open('p', sealed, 'store:1', 'x'), 'whsec_abc');
    assert.throws(() => before.open('p', sealed, 'store:2', 'x'), SecretUnreadableError, 'another row');
    assert.throws(() => before.open('q', sealed, 'store:1', 'x'), SecretUnreadableError, 'another purpose');

    const rotated = new Keyring([current, old]);
    assert.equal(rotated.open('p', sealed, 'store:1', 'x'), 'whsec_abc', 'the previous root still opens');
    assert.equal(rotated.isCurrent('p', sealed), false);
    const resealed = rotated.seal('p', 'whsec_abc', 'store:1');
    assert.equal(rotated.isCurrent('p', resealed), true);

    const lost = new Keyring([current]);
    assert.throws(
      () => lost.open('p', sealed, 'store:1', 'The secret of endpoint e'),
      (error: unknown) =>
        error instanceof SecretUnreadableError &&
        /The secret of endpoint e cannot be decrypted/.test(error.message) &&
        /SECRET_KEY_PREVIOUS/.test(error.message),
    );
    assert.throws(() => lost.open('p', 'plain text', 'store:1', 'x'), SecretUnreadableError);
  });

  test('opens the v1 format written before the keyring, with any root', () => {
    const old = root('old');
    const key = deriveKey(old.secret, 'webhook-endpoint-secrets');
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from('webhook-endpoint:s:e'));
    const ct = Buffer.concat([cipher.update('whsec_legacy', 'utf8'), cipher.final()]);
    const v1 = [
      'v1',
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      ct.toString('base64url'),
    ].join('.');
    const keyring = new Keyring([root('new'), old]);
    assert.equal(
      keyring.open('webhook-endpoint-secrets', v1, 's:e', 'x', 'webhook-endpoint:s:e'),
      'whsec_legacy',
    );
    assert.equal(keyring.isCurrent('webhook-endpoint-secrets', v1), false);
    assert.throws(() =>
      new Keyring([root('new')]).open('webhook-endpoint-secrets', v1, 's:e', 'x', 'webhook-endpoint:s:e'),
    );
  });
});
