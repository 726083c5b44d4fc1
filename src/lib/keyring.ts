import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * The deployment's root secrets as a keyring (decision `keyring`). The first root encrypts; every root
 * decrypts, so `SECRET_KEY` can change without losing what the old one encrypted: the old value
 * moves to `SECRET_KEY_PREVIOUS` until `storefront secrets rotate` has re-encrypted everything.
 *
 * Values are sealed with AES-256-GCM under a key derived per purpose (HKDF-SHA-256), with the
 * row's identity as associated data (a ciphertext copied onto another row does not open):
 *
 *     v2.<key id>.<iv>.<tag>.<ciphertext>        (base64url parts)
 *
 * The key id (8 hex characters of a hash of the derived key) names the root that sealed the value,
 * so opening tries exactly one key, and a value sealed by a root that is no longer configured is
 * recognised as such. The format written before the keyring, `v1.<iv>.<tag>.<ciphertext>`, is
 * still opened (with every root in turn).
 */

export interface RootSecret {
  /** Where it came from, for messages: `SECRET_KEY`, `SECRET_KEY_PREVIOUS[1]`, `generated`. */
  readonly name: string;
  readonly secret: Buffer;
}

/** A sealed value that no root of the keyring opens (or that is not a sealed value at all). */
export class SecretUnreadableError extends Error {
  constructor(what: string, reason: string) {
    super(
      `${what} cannot be decrypted: ${reason}. SECRET_KEY changed? Put the old value in SECRET_KEY_PREVIOUS, then run \`storefront secrets rotate\`.`,
    );
    this.name = 'SecretUnreadableError';
  }
}

const SEALED = 'v2';
const LEGACY = 'v1';

/** A purpose-specific key derived from a root secret (HKDF-SHA-256). */
export function deriveKey(root: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), `storefront:${purpose}`, 32));
}

const keyIdOf = (key: Buffer): string => createHash('sha256').update(key).digest('hex').slice(0, 8);

interface Derived {
  root: string;
  key: Buffer;
  id: string;
}

export class Keyring {
  readonly #roots: readonly RootSecret[];
  readonly #derived = new Map<string, Derived[]>();

  /** `roots[0]` encrypts; all of them decrypt. */
  constructor(roots: readonly RootSecret[]) {
    if (roots.length === 0) throw new Error('A keyring needs at least one root secret.');
    this.#roots = roots;
  }

  /** Names of the roots, the encrypting one first (never their values). */
  get rootNames(): string[] {
    return this.#roots.map((root) => root.name);
  }

  #keys(purpose: string): Derived[] {
    let keys = this.#derived.get(purpose);
    if (!keys) {
      keys = this.#roots.map((root) => {
        const key = deriveKey(root.secret, purpose);
        return { root: root.name, key, id: keyIdOf(key) };
      });
      this.#derived.set(purpose, keys);
    }
    return keys;
  }

  /** The current root's key for a purpose (HMAC signing: cursors, sign-in codes). */
  key(purpose: string): Buffer {
    return this.#keys(purpose)[0]!.key;
  }

  /** Encrypts `plaintext` with the current root; `context` (e.g. `payment:<store>:<ref>`) binds it to its row. */
  seal(purpose: string, plaintext: string, context: string): string {
    const current = this.#keys(purpose)[0]!;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', current.key, iv);
    cipher.setAAD(Buffer.from(`${purpose}:${context}`, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [
      SEALED,
      current.id,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      ciphertext.toString('base64url'),
    ].join('.');
  }

  /** True when `value` was sealed by the current root (nothing to re-encrypt). */
  isCurrent(purpose: string, value: string): boolean {
    return value.startsWith(`${SEALED}.${this.#keys(purpose)[0]!.id}.`);
  }

  /**
   * Decrypts a sealed value. Throws SecretUnreadableError (naming `what`) when no root opens it.
   * `legacyContext` is the associated data the pre-keyring `v1` format of this purpose used.
   */
  open(purpose: string, value: string, context: string, what: string, legacyContext?: string): string {
    const parts = value.split('.');
    if (parts[0] === SEALED && parts.length === 5) {
      const [, id, iv, tag, ciphertext] = parts as [string, string, string, string, string];
      const key = this.#keys(purpose).find((candidate) => candidate.id === id);
      if (!key)
        throw new SecretUnreadableError(what, 'it was encrypted with a root secret that is not configured');
      const opened = decrypt(key.key, `${purpose}:${context}`, iv, tag, ciphertext);
      if (opened === null) throw new SecretUnreadableError(what, 'the ciphertext does not authenticate');
      return opened;
    }
    if (parts[0] === LEGACY && parts.length === 4 && legacyContext !== undefined) {
      const [, iv, tag, ciphertext] = parts as [string, string, string, string];
      for (const key of this.#keys(purpose)) {
        const opened = decrypt(key.key, legacyContext, iv, tag, ciphertext);
        if (opened !== null) return opened;
      }
      throw new SecretUnreadableError(what, 'no configured root secret opens it');
    }
    throw new SecretUnreadableError(what, 'it is not an encrypted value');
  }

  /** True when `value` looks sealed (either format); stored plaintext from before sealing does not. */
  static isSealed(value: string): boolean {
    const parts = value.split('.');
    return (parts[0] === SEALED && parts.length === 5) || (parts[0] === LEGACY && parts.length === 4);
  }
}

function decrypt(key: Buffer, aad: string, iv: string, tag: string, ciphertext: string): string | null {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    return null;
  }
}

/** Stored values of one kind that the keyring seals, for `storefront secrets rotate` and `check`. */
export interface SealedValues<Row> {
  /** What they are, for the report ("webhook endpoint signing secrets"). */
  readonly what: string;
  /** The next rows after `after` (keyset order), at most `limit`. */
  batch(after: Row | undefined, limit: number): Promise<Row[]>;
  /**
   * Re-encrypts the row's values under the current root and writes them (unless `dryRun`).
   * Returns whether anything was (or would be) re-encrypted; throws SecretUnreadableError.
   */
  reseal(row: Row, dryRun: boolean): Promise<boolean>;
}

export interface ResealReport {
  what: string;
  resealed: number;
  current: number;
  unreadable: number;
  /** The first few reasons a value could not be opened. */
  problems: string[];
}

/** Walks every stored value of a kind, re-encrypting what the current root did not seal. */
export async function resealAll<Row>(values: SealedValues<Row>, dryRun: boolean): Promise<ResealReport> {
  const report: ResealReport = { what: values.what, resealed: 0, current: 0, unreadable: 0, problems: [] };
  let after: Row | undefined;
  for (;;) {
    const rows = await values.batch(after, 500);
    for (const row of rows) {
      try {
        if (await values.reseal(row, dryRun)) report.resealed += 1;
        else report.current += 1;
      } catch (error) {
        if (!(error instanceof SecretUnreadableError)) throw error;
        report.unreadable += 1;
        if (report.problems.length < 5) report.problems.push(error.message);
      }
    }
    if (rows.length < 500) return report;
    after = rows.at(-1);
  }
}

/** A row as the text form of its columns' values, by column name (null for SQL NULL). */
export type TextRow = Record<string, string | null>;

/**
 * Where one kind of sealed value rests, described so that a row can be re-sealed outside the
 * database (a row of an archive, `storefront export --key-file`): its table, its columns, and how a
 * row's context (the associated data its values are sealed with) is made from the row's other
 * columns. Each kind declares it beside the code that seals it, with the same context function.
 */
export interface SealedColumns {
  /** As `SealedValues.what`. */
  readonly what: string;
  readonly table: string;
  readonly purpose: string;
  readonly columns: readonly string[];
  context(row: Readonly<TextRow>): string;
  /** The associated data of the pre-keyring `v1` format, when the kind had one. */
  legacyContext?(row: Readonly<TextRow>): string;
  /** Only these rows hold sealed values (default: every row). */
  sealedIn?(row: Readonly<TextRow>): boolean;
  /** Values from before sealing may rest as plaintext: they are sealed on the way. */
  plaintextBefore?: boolean;
}

/**
 * Re-seals the values of one kind in `row` (changed in place) from the roots of `from` under the
 * current root of `to`; returns how many values changed. A value `to` sealed already stays as it
 * is. Throws SecretUnreadableError for a value no root of `from` opens.
 */
export function resealColumns(spec: SealedColumns, row: TextRow, from: Keyring, to: Keyring): number {
  if (spec.sealedIn && !spec.sealedIn(row)) return 0;
  let changed = 0;
  for (const column of spec.columns) {
    const value = row[column];
    if (value === null || value === undefined || to.isCurrent(spec.purpose, value)) continue;
    const context = spec.context(row);
    const plain =
      spec.plaintextBefore && !Keyring.isSealed(value)
        ? value
        : from.open(
            spec.purpose,
            value,
            context,
            `${spec.what} (${spec.table}.${column})`,
            spec.legacyContext?.(row),
          );
    row[column] = to.seal(spec.purpose, plain, context);
    changed += 1;
  }
  return changed;
}
