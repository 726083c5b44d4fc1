/**
 * What the archive tests do to archive files: rewrite them (a row changed, the sums recomputed, the
 * manifest signed again or not), read their entries, and run the `storefront` command on them.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import type { RootSecret } from '../lib/keyring.ts';
import { MAC_NAME, MANIFEST_NAME, type Manifest } from './archive.format.ts';
import { manifestMac } from './archive.keys.ts';
import { readTar, TarWriter } from './tar.ts';

/** Every entry of an archive, in order, with its content. */
export async function entries(file: string): Promise<{ name: string; content: Buffer }[]> {
  const all: { name: string; content: Buffer }[] = [];
  for await (const entry of readTar(fs.createReadStream(file).pipe(zlib.createGunzip()))) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry.body) chunks.push(chunk);
    all.push({ name: entry.name, content: Buffer.concat(chunks) });
  }
  return all;
}

/** The manifest of an archive. */
export async function manifestOf(file: string): Promise<Manifest> {
  const manifest = (await entries(file)).find((entry) => entry.name === MANIFEST_NAME)!;
  return JSON.parse(manifest.content.toString('utf8')) as Manifest;
}

export interface Rewrite {
  /** Put the manifest's sums (SHA-256, bytes, rows) right for the changed tables, as a forger would. */
  recompute?: boolean;
  /** Sign the manifest again with this key (as `storefront export` would with it). */
  signWith?: RootSecret;
  /** Leave manifest.mac out. */
  dropMac?: boolean;
}

/** Copies an archive, changing each entry's content with `edit` (the tar is rewritten, gzip again). */
export async function rewrite(
  from: string,
  to: string,
  edit: (name: string, content: Buffer) => Buffer,
  options: Rewrite = {},
): Promise<void> {
  const changed = (await entries(from)).map((entry) => ({
    ...entry,
    content: edit(entry.name, entry.content),
  }));
  const manifestEntry = changed.find((entry) => entry.name === MANIFEST_NAME);
  if (manifestEntry && options.recompute) {
    const manifest = JSON.parse(manifestEntry.content.toString('utf8')) as Manifest;
    for (const table of manifest.tables) {
      const content = changed.find((entry) => entry.name === table.file)!.content;
      table.sha256 = createHash('sha256').update(content).digest('hex');
      table.bytes = content.length;
      table.rows = content.toString('utf8').split('\n').length - 1;
    }
    manifestEntry.content = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
  }
  const gzip = zlib.createGzip({ level: 1 });
  const done = pipeline(gzip, fs.createWriteStream(to));
  const tar = new TarWriter(gzip, new Date());
  for (const entry of changed) {
    if (entry.name === MAC_NAME && options.dropMac) continue;
    const content =
      entry.name === MAC_NAME && options.signWith && manifestEntry
        ? Buffer.from(manifestMac(options.signWith, manifestEntry.content))
        : entry.content;
    await tar.add(entry.name, content.length, [content]);
  }
  await tar.finish();
  gzip.end();
  await done;
}

/** Changes the manifest's JSON with `change`. */
export const editManifest =
  (change: (m: Record<string, unknown>) => void) =>
  (name: string, content: Buffer): Buffer => {
    if (name !== MANIFEST_NAME) return content;
    const m = JSON.parse(content.toString('utf8')) as Record<string, unknown>;
    change(m);
    return Buffer.from(JSON.stringify(m));
  };

/** A root as the key file of `--key-file` holds it. */
export const rootOf = (key: string): RootSecret => ({
  name: 'the key file',
  secret: Buffer.from(key, 'utf8'),
});

const MAIN = path.resolve(import.meta.dirname, '..', 'main.ts');

/** `node src/main.ts …args` with the environment `env` over the test's (embedded database, SEED_DEMO=0). */
export function storefront(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      env: { ...process.env, SEED_DEMO: '0', LOG_LEVEL: 'error', DATABASE_URL: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
