import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import { safeEqual } from '../lib/crypto.ts';
import { Keyring, SecretUnreadableError, type RootSecret } from '../lib/keyring.ts';
import {
  ArchiveError,
  KEY_CHECK_PURPOSE,
  MAC_PURPOSE,
  keyCheckContext,
  type ArchiveKeySource,
  type Manifest,
} from './archive.format.ts';

/**
 * The archive key (decisions `archive-secrets` and `archive-signature`): the one key that seals
 * every secret an archive holds and signs its manifest. It is the exporting SECRET_KEY, or the key
 * in the file of `--key-file` (required for an archive of one store meant for someone else, and
 * when SECRET_KEY is unset).
 */

/** The root secrets of a process (SECRET_KEY, SECRET_KEY_PREVIOUS), as the configuration holds them. */
export interface ArchiveSecrets {
  secretKey: string | null;
  secretKeyPrevious: readonly string[];
}

export interface ArchiveKey {
  root: RootSecret;
  source: ArchiveKeySource;
}

/** As long as a SECRET_KEY must be. */
const MIN_KEY_CHARACTERS = 32;
export const KEY_FILE_ADVICE = 'e.g. `openssl rand -base64 48 > archive.key; chmod 600 archive.key`';

/** The archive key in a key file: its text without surrounding white space, at least 32 characters. */
export function readKeyFile(file: string): RootSecret {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'there is no such file' : code === 'EACCES' ? 'permission denied' : String(code);
    throw new ArchiveError(`Cannot read the key file ${file}: ${why}.`);
  }
  const key = text.trim();
  if (key.length < MIN_KEY_CHARACTERS)
    throw new ArchiveError(
      `The key file ${file} holds ${key.length} characters; an archive key is at least ${MIN_KEY_CHARACTERS} characters of random text (${KEY_FILE_ADVICE}).`,
    );
  return { name: 'the key file', secret: Buffer.from(key, 'utf8') };
}

/** The roots of a process's configuration, SECRET_KEY first. */
export function configuredRoots(secrets: ArchiveSecrets): RootSecret[] {
  return [
    ...(secrets.secretKey === null ? [] : [{ name: 'SECRET_KEY', secret: Buffer.from(secrets.secretKey) }]),
    ...secrets.secretKeyPrevious.map((secret, i) => ({
      name: `SECRET_KEY_PREVIOUS[${i + 1}]`,
      secret: Buffer.from(secret, 'utf8'),
    })),
  ];
}

/** The key an export seals and signs with: the key file, else SECRET_KEY; without either it refuses. */
export function exportKey(secrets: ArchiveSecrets, keyFile: RootSecret | null): ArchiveKey {
  if (keyFile) return { root: keyFile, source: 'key file' };
  if (secrets.secretKey !== null)
    return {
      root: { name: 'SECRET_KEY', secret: Buffer.from(secrets.secretKey, 'utf8') },
      source: 'SECRET_KEY',
    };
  throw new ArchiveError(
    'An archive is sealed and signed with a key, and SECRET_KEY is not set. Give the archive a key of its own: ' +
      `\`storefront export --key-file FILE …\`, FILE holding at least ${MIN_KEY_CHARACTERS} characters of random text (${KEY_FILE_ADVICE}). ` +
      '`storefront import --key-file FILE` needs the same file: keep it apart from the archive.',
  );
}

/** The manifest's MAC (HMAC-SHA-256 under a key derived from the archive key), as `manifest.mac` holds it. */
export function manifestMac(root: RootSecret, manifest: Buffer): string {
  const mac = createHmac('sha256', new Keyring([root]).key(MAC_PURPOSE))
    .update(manifest)
    .digest('hex');
  return `hmac-sha256:${mac}\n`;
}

/** Whether `mac` (the content of `manifest.mac`, if any) is the manifest's MAC under `root`. */
export function macVerifies(root: RootSecret, manifest: Buffer, mac: string | null): boolean {
  return mac !== null && safeEqual(mac.trim(), manifestMac(root, manifest).trim());
}

/** The root among `candidates` that opens the manifest's key check, or null. */
export function rootOfArchive(manifest: Manifest, candidates: readonly RootSecret[]): RootSecret | null {
  for (const root of candidates) {
    try {
      new Keyring([root]).open(
        KEY_CHECK_PURPOSE,
        manifest.secrets.keyCheck,
        keyCheckContext(manifest.createdAt),
        "The archive's key check",
      );
      return root;
    } catch (error) {
      if (!(error instanceof SecretUnreadableError)) throw error;
    }
  }
  return null;
}

/** Why no key of this process opens an archive, and what to do. */
export function noKeyOpens(manifest: Manifest, keyFileGiven: boolean): ArchiveError {
  if (manifest.secrets.sealedWith === 'key file')
    return new ArchiveError(
      keyFileGiven
        ? 'The key file does not open this archive: it was exported with another key (give the file that was given to `storefront export --key-file`). Nothing was imported.'
        : 'This archive is sealed and signed with a key of its own (`storefront export --key-file`): give the same file, `storefront import --key-file FILE ARCHIVE`. Nothing was imported.',
    );
  return new ArchiveError(
    "The archive's secrets were sealed with a SECRET_KEY this process does not have. " +
      'Set SECRET_KEY_PREVIOUS to the SECRET_KEY of the process that exported it (and SECRET_KEY to the key this installation keeps), ' +
      'or give that key in a file with --key-file, then import again. Nothing was imported.',
  );
}
