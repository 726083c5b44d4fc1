/** Test helpers for imports: an app that runs its workers on a port, uploads, and waiting for a job to end. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { startTestApp, testConfig, type TestApp, type TestStore } from '../test/harness.ts';
import type { ImportView } from './imports.schemas.ts';

export interface ImportTestApp {
  t: TestApp;
  base: string;
  close(): Promise<void>;
}

/** The app with its workers (the import loop among them), listening; image fetches may go to loopback. */
export async function startImportTestApp(): Promise<ImportTestApp> {
  const base = testConfig();
  const t = await startTestApp({
    workers: true,
    config: {
      webhooks: { ...base.webhooks, allowHttp: true },
      imports: { ...base.imports, leaseMs: 5_000 },
    },
  });
  const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  return { t, base: url, close: () => t.close() };
}

export async function upload(
  base: string,
  shop: TestStore,
  kind: string,
  csv: string | Buffer,
  options: { dryRun?: boolean; name?: string } = {},
): Promise<Response> {
  const form = new FormData();
  form.append('kind', kind);
  if (options.dryRun !== undefined) form.append('dryRun', String(options.dryRun));
  form.append('file', new Blob([csv], { type: 'text/csv' }), options.name ?? `${kind}.csv`);
  return fetch(`${base}/admin/v1/imports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${shop.staffToken}` },
    body: form,
  });
}

/** Uploads a file and waits for its import to end; the job as it ended. */
export async function imported(
  base: string,
  shop: TestStore,
  kind: string,
  csv: string | Buffer,
  options: { dryRun?: boolean } = {},
): Promise<ImportView> {
  const response = await upload(base, shop, kind, csv, options);
  const text = await response.text();
  assert.equal(response.status, 202, text);
  return finished(base, shop, (JSON.parse(text) as ImportView).id);
}

export async function readImport(base: string, shop: TestStore, id: string): Promise<ImportView> {
  const response = await fetch(`${base}/admin/v1/imports/${id}`, {
    headers: { authorization: `Bearer ${shop.staffToken}` },
  });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text) as ImportView;
}

export async function finished(
  base: string,
  shop: TestStore,
  id: string,
  timeoutMs = 60_000,
): Promise<ImportView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await readImport(base, shop, id);
    if (job.status === 'completed' || job.status === 'failed') return job;
    if (Date.now() > deadline) assert.fail(`import ${id} still ${job.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A server of PNG pictures at `/<name>.png` (each its own colour), counting requests by path. */
export async function imageServer(): Promise<{
  url: string;
  hits: Map<string, number>;
  close(): Promise<void>;
}> {
  const hits = new Map<string, number>();
  const server = http.createServer((request, response) => {
    const path = request.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const name = /^\/([a-z-]+)\.png$/.exec(path)?.[1];
    if (!name) {
      response.writeHead(404).end();
      return;
    }
    const shade = [...name].reduce((sum, char) => sum + char.charCodeAt(0), 0) % 256;
    void sharp({
      create: { width: 40, height: 30, channels: 3, background: { r: shade, g: 80, b: 255 - shade } },
    })
      .png()
      .toBuffer()
      .then((png) => response.writeHead(200, { 'content-type': 'image/png' }).end(png));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The sample Shopify export (src/imports/fixtures/shopify-products.csv), its images served from `images`. */
export function sampleProducts(images: string): string {
  return fs
    .readFileSync(new URL('fixtures/shopify-products.csv', import.meta.url), 'utf8')
    .replaceAll('{images}', images);
}
