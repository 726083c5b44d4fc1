import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { startTestApp, testConfig, type TestApp } from '../test/harness.ts';
import type { MediaConfig } from './media.config.ts';

/** A test app listening on a port, with media settings of its own and a media directory it removes. */
export interface MediaTestApp {
  t: TestApp;
  /** `http://127.0.0.1:<port>`. */
  base: string;
  close(): Promise<void>;
}

export async function startMediaTestApp(media: Partial<MediaConfig>): Promise<MediaTestApp> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-media-'));
  const t = await startTestApp({ config: { media: { ...testConfig().media, dir, ...media } } });
  const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    t,
    base,
    async close() {
      await t.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A PNG chunk: length, type, data and CRC, as a file holds it. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([length, body, crc]);
}
