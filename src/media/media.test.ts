/**
 * Media (decision `media-uploads`) through real HTTP: uploads as multipart forms (undici's FormData and Blob, as a
 * browser sends them) checked by decoding, the files at immutable URLs resized to a fixed set of
 * widths in the format the Accept header prefers, the bound on resizing work, tenant isolation, and
 * products' images (order, alt text, a variant's image, the card's image).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../test/harness.ts';
import { pngChunk, startMediaTestApp, type MediaTestApp } from './media.test-support.ts';

interface Media {
  id: string;
  url: string;
  width: number;
  height: number;
  contentType: string;
  bytes: number;
}
interface Problem {
  title: string;
  detail: string;
  errors?: { pointer: string; detail: string; in?: string }[];
}

let t: TestApp;
let base: string;
before(async () => {
  t = await startTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
after(() => t.close());

const solid = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 90, b: 40 } } });

/** A 1000 × 500 picture with some detail (a gradient), so that encoders have work to do. */
function picture(width = 1000, height = 500) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><linearGradient id="g"><stop offset="0" stop-color="#c53"/><stop offset="1" stop-color="#35c"/></linearGradient></defs>
    <rect width="${width}" height="${height}" fill="url(#g)"/><circle cx="${width / 2}" cy="${height / 2}" r="${height / 3}" fill="#fff"/></svg>`;
  return sharp(Buffer.from(svg));
}

async function upload(
  shop: TestStore,
  files: { bytes: Buffer | string; name: string; type?: string }[],
  extra: Record<string, string> = {},
): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(extra)) form.append(name, value);
  for (const file of files)
    form.append('file', new Blob([file.bytes], { type: file.type ?? 'application/octet-stream' }), file.name);
  return fetch(`${base}/admin/v1/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${shop.staffToken}` },
    body: form,
  });
}

async function uploaded(shop: TestStore, bytes: Buffer, name = 'image'): Promise<Media> {
  const response = await upload(shop, [{ bytes, name }]);
  const body = await response.text();
  assert.equal(response.status, 201, body);
  return JSON.parse(body) as Media;
}

async function refused(response: Response, status: number, title: string): Promise<Problem> {
  const body = await response.text();
  assert.equal(response.status, status, body);
  assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const problem = JSON.parse(body) as Problem;
  assert.equal(problem.title, title, body);
  return problem;
}

const get = (url: string, headers: Record<string, string> = {}) => fetch(`${base}${url}`, { headers });

async function dimensions(response: Response): Promise<{ format: string; width: number; height: number }> {
  const metadata = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
  return { format: metadata.format, width: metadata.width, height: metadata.height };
}

describe('uploads (POST /admin/v1/media)', () => {
  let shop: TestStore;
  before(async () => {
    shop = await createTestStore(t);
  });

  test('JPEG, PNG, WebP, GIF and AVIF are taken, known by decoding, with their size; the same file twice is the same media', async () => {
    const cases = [
      { bytes: await picture().jpeg().toBuffer(), type: 'image/jpeg', ext: 'jpg' },
      { bytes: await picture(640, 480).png().toBuffer(), type: 'image/png', ext: 'png' },
      { bytes: await picture(300, 600).webp().toBuffer(), type: 'image/webp', ext: 'webp' },
      { bytes: await solid(120, 80).gif().toBuffer(), type: 'image/gif', ext: 'gif' },
      { bytes: await solid(64, 48).avif().toBuffer(), type: 'image/avif', ext: 'avif' },
    ];
    for (const { bytes, type, ext } of cases) {
      // The name says nothing true: the bytes decide.
      const media = await uploaded(shop, bytes, 'photo.bin');
      const metadata = await sharp(bytes).metadata();
      assert.equal(media.contentType, type);
      assert.deepEqual([media.width, media.height], [metadata.width, metadata.height]);
      assert.match(media.url, new RegExp(`^/media/${shop.store.id}/[0-9a-f]{64}\\.${ext}$`));
      // What is kept is the upload encoded again; `bytes` is its size.
      const served = Buffer.from(await (await fetch(`${base}${media.url}`)).arrayBuffer());
      assert.equal(media.bytes, served.length);
      assert.equal((await sharp(served).metadata()).format, metadata.format);

      const read = await t.admin(shop).get(`/media/${media.id}`);
      assert.equal(read.statusCode, 200, read.body);
      assert.deepEqual(read.json(), media);
      assert.equal(read.headers['cache-control'], 'no-store');

      const again = await uploaded(shop, bytes, 'again.jpg');
      assert.equal(again.id, media.id, 'the same bytes are the same media');
    }
    const rows = await t.db.kysely
      .selectFrom('media')
      .select('id')
      .where('store_id', '=', shop.store.id)
      .execute();
    assert.equal(rows.length, cases.length);
  });

  test('a photo of several MiB is taken (the API’s 1 MiB JSON limit does not apply); over MEDIA_MAX_PIXELS (40 megapixels) is 413', async () => {
    const noise = await sharp({
      create: {
        width: 1200,
        height: 1000,
        channels: 3,
        background: '#888',
        noise: { type: 'gaussian', mean: 128, sigma: 60 },
      },
    })
      .png()
      .toBuffer();
    assert.ok(noise.length > 2 * 1024 * 1024, `${noise.length} bytes`);
    const media = await uploaded(shop, noise, 'noise.png');
    assert.deepEqual([media.width, media.height], [1200, 1000]);

    // A PNG whose header says 10,000 × 10,000: refused from the header, before any pixel is decoded.
    const header = Buffer.alloc(13);
    header.writeUInt32BE(10_000, 0);
    header.writeUInt32BE(10_000, 4);
    header.set([8, 2, 0, 0, 0], 8);
    const bomb = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      pngChunk('IHDR', header),
      pngChunk('IDAT', zlib.deflateSync(Buffer.alloc(0))),
      pngChunk('IEND', Buffer.alloc(0)),
    ]);
    const problem = await refused(
      await upload(shop, [{ bytes: bomb, name: 'bomb.png' }]),
      413,
      'image_too_large',
    );
    assert.match(problem.detail, /10000×10000 pixels; at most 40 megapixels are taken \(MEDIA_MAX_PIXELS\)/);
  });

  test('an EXIF orientation is applied to the size shown', async () => {
    const rotated = await picture(400, 200).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const media = await uploaded(shop, rotated);
    assert.deepEqual([media.width, media.height], [200, 400]);
  });

  test('a photo’s metadata (EXIF GPS, author) is not kept: the file served is oriented and clean, and the same photo is the same media', async () => {
    const photo = await picture(400, 200)
      .jpeg()
      .withMetadata({ orientation: 6 })
      .withExif({ IFD0: { Artist: 'Jane Merchant', Copyright: 'Jane' }, IFD3: { GPSLatitudeRef: 'N' } })
      .toBuffer();
    assert.ok((await sharp(photo).metadata()).exif, 'the upload carries EXIF');
    const media = await uploaded(shop, photo);
    const served = Buffer.from(await (await fetch(`${base}${media.url}`)).arrayBuffer());
    const metadata = await sharp(served).metadata();
    assert.equal(metadata.exif, undefined, 'no EXIF served');
    assert.equal(served.includes('Jane Merchant'), false);
    assert.deepEqual([metadata.width, metadata.height], [200, 400], 'oriented as displayed');
    assert.equal(media.bytes, served.length);
    assert.equal((await uploaded(shop, photo)).id, media.id);
  });

  test('what is not a whole image of the five types is 415 unsupported_image with a clear detail, never a 500', async () => {
    const text = await refused(
      await upload(shop, [{ bytes: 'hello, this is text\n'.repeat(50), name: 'cat.png', type: 'image/png' }]),
      415,
      'unsupported_image',
    );
    assert.match(text.detail, /not a JPEG, PNG, WebP, AVIF or GIF image/);
    assert.equal(text.errors?.[0]?.pointer, '/file');

    const jpeg = await picture().jpeg().toBuffer();
    const truncated = await refused(
      await upload(shop, [{ bytes: jpeg.subarray(0, Math.floor(jpeg.length / 2)), name: 'half.jpg' }]),
      415,
      'unsupported_image',
    );
    assert.match(truncated.detail, /not a whole image\/jpeg image.*damaged or cut short/);

    const png = await picture().png().toBuffer();
    await refused(
      await upload(shop, [{ bytes: png.subarray(0, Math.floor(png.length / 2)), name: 'half.png' }]),
      415,
      'unsupported_image',
    );

    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>';
    await refused(
      await upload(shop, [{ bytes: svg, name: 'x.svg', type: 'image/svg+xml' }]),
      415,
      'unsupported_image',
    );
    const tiff = await solid(10, 10).tiff().toBuffer();
    await refused(await upload(shop, [{ bytes: tiff, name: 'x.png' }]), 415, 'unsupported_image');

    const empty = await refused(
      await upload(shop, [{ bytes: '', name: 'empty.png' }]),
      400,
      'validation_failed',
    );
    assert.match(empty.detail, /empty/);
  });

  test('exactly one file part: two, or none, is 400; a JSON body is 415', async () => {
    const jpeg = await solid(20, 20).jpeg().toBuffer();
    const two = await refused(
      await upload(shop, [
        { bytes: jpeg, name: 'a.jpg' },
        { bytes: jpeg, name: 'b.jpg' },
      ]),
      400,
      'validation_failed',
    );
    assert.match(two.detail, /exactly one file part/);
    assert.equal(two.errors?.[0]?.pointer, '/file');

    const none = await refused(await upload(shop, [], { alt: 'no file' }), 400, 'validation_failed');
    assert.match(none.detail, /no file part/);

    const withField = await upload(shop, [{ bytes: jpeg, name: 'a.jpg' }], { note: 'ignored' });
    assert.equal(withField.status, 201, 'other fields are ignored');

    const json = await fetch(`${base}/admin/v1/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.staffToken}`, 'content-type': 'application/json' },
      body: '{"file": "x"}',
    });
    const problem = await refused(json, 415, 'unsupported_media_type');
    assert.match(problem.detail, /multipart\/form-data/);

    const broken = await fetch(`${base}/admin/v1/media`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${shop.staffToken}`,
        'content-type': 'multipart/form-data; boundary=xyz',
      },
      body: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\n\r\nabc',
    });
    assert.ok([400, 415].includes(broken.status), `a form cut short: ${broken.status}`);
  });

  test('without a staff session, 401', async () => {
    const response = await fetch(`${base}/admin/v1/media`, { method: 'POST', body: new FormData() });
    assert.equal(response.status, 401);
  });
});

describe('uploads over MEDIA_MAX_MB', () => {
  let small: MediaTestApp;
  before(async () => {
    small = await startMediaTestApp({ maxBytes: 1024 * 1024, resizeConcurrency: 2, resizeQueue: 8 });
  });
  after(() => small.close());

  test('413 image_too_large, whether the length says so at once or the file runs over while it is read', async () => {
    const shop = await createTestStore(small.t);
    const jpegHeader = Buffer.from([0xff, 0xd8, 0xff, 0xe0]);
    for (const size of [3 * 1024 * 1024, 1024 * 1024 + 4096]) {
      const form = new FormData();
      form.append('file', new Blob([jpegHeader, Buffer.alloc(size)]), 'big.jpg');
      const response = await fetch(`${small.base}/admin/v1/media`, {
        method: 'POST',
        headers: { authorization: `Bearer ${shop.staffToken}` },
        body: form,
      });
      const problem = await refused(response, 413, 'image_too_large');
      assert.match(problem.detail, /larger than 1 MiB.*MEDIA_MAX_MB/);
    }
    assert.deepEqual(fs.readdirSync(small.t.config.media.dir), [], 'nothing kept');
  });
});

describe('serving (GET /media/{storeId}/{hash}.{ext})', () => {
  let shop: TestStore;
  let photo: Media;
  before(async () => {
    shop = await createTestStore(t);
    photo = await uploaded(shop, await picture(1000, 500).jpeg({ quality: 90 }).toBuffer());
  });
  const hashOf = (media: Media) => /([0-9a-f]{64})\./.exec(media.url)![1]!;

  test('the file kept at upload: immutable for a year, its hash as ETag, 304 to If-None-Match, no key needed', async () => {
    const response = await get(photo.url);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'image/jpeg');
    assert.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(response.headers.get('etag'), `"${hashOf(photo)}"`);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(Number(response.headers.get('content-length')), photo.bytes);
    assert.deepEqual(await dimensions(response), { format: 'jpeg', width: 1000, height: 500 });

    const again = await get(photo.url, { 'if-none-match': `"${hashOf(photo)}"` });
    assert.equal(again.status, 304);
    assert.equal(again.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal((await again.arrayBuffer()).byteLength, 0);

    const head = await fetch(`${base}${photo.url}`, { method: 'HEAD' });
    assert.equal(head.status, 200);
  });

  test('?w= resizes to that width (320 of 1000 × 500 is 320 × 160) in AVIF, WebP or the upload’s format by Accept', async () => {
    const cases: [string | undefined, string, string][] = [
      ['image/avif,image/webp,image/apng,image/*,*/*;q=0.8', 'image/avif', 'heif'],
      ['image/webp,*/*', 'image/webp', 'webp'],
      ['image/avif;q=0, image/webp', 'image/webp', 'webp'],
      ['*/*', 'image/jpeg', 'jpeg'],
      [undefined, 'image/jpeg', 'jpeg'],
    ];
    for (const [accept, type, format] of cases) {
      const response = await get(`${photo.url}?w=320`, accept === undefined ? {} : { accept });
      assert.equal(response.status, 200, accept);
      assert.equal(response.headers.get('content-type'), type, accept);
      assert.equal(response.headers.get('vary'), 'Accept');
      assert.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      const etag = response.headers.get('etag') ?? '';
      assert.match(etag, new RegExp(`^"${hashOf(photo)}\\.w320\\.`));
      assert.deepEqual(await dimensions(response), { format, width: 320, height: 160 }, accept);
      const notModified = await get(`${photo.url}?w=320`, {
        ...(accept ? { accept } : {}),
        'if-none-match': etag,
      });
      assert.equal(notModified.status, 304);
    }
  });

  test('a copy is made once and kept: the second request reads the stored file', async () => {
    const accept = { accept: 'image/webp' };
    const first = await get(`${photo.url}?w=640`, accept);
    const firstBytes = Buffer.from(await first.arrayBuffer());
    const kept = path.join(t.config.media.dir, shop.store.id, `${hashOf(photo)}.w640.webp`);
    assert.ok(fs.existsSync(kept), 'the copy is in the storage');
    const stamp = fs.statSync(kept).mtimeMs;
    const second = await get(`${photo.url}?w=640`, accept);
    assert.deepEqual(Buffer.from(await second.arrayBuffer()), firstBytes);
    assert.equal(Number(second.headers.get('content-length')), firstBytes.length, 'streamed from the file');
    assert.equal(fs.statSync(kept).mtimeMs, stamp, 'not made again');
  });

  test('never enlarged; a width outside the fixed set is 400; unknown media and a wrong extension are 404', async () => {
    const wide = await get(`${photo.url}?w=1920`, { accept: 'image/webp' });
    assert.equal(wide.status, 200);
    assert.deepEqual(await dimensions(wide), { format: 'webp', width: 1000, height: 500 });

    for (const w of ['400', '0', '2000', 'abc', '320.5']) {
      const response = await get(`${photo.url}?w=${w}`);
      const problem = await refused(response, 400, 'validation_failed');
      assert.equal(problem.errors?.[0]?.pointer, '/w', w);
      assert.equal(response.headers.get('cache-control'), 'no-store');
    }
    const widths = await refused(await get(`${photo.url}?w=400`), 400, 'validation_failed');
    assert.match(widths.detail, /160, 320, 640, 960, 1280, 1920/);

    const unknown = `/media/${shop.store.id}/${'0'.repeat(64)}.jpg`;
    const missing = await refused(await get(unknown), 404, 'not_found');
    assert.ok(missing);
    await refused(await get(`${unknown}?w=320`), 404, 'not_found');
    await refused(await get(photo.url.replace(/\.jpg$/, '.png')), 404, 'not_found');
    const other = await createTestStore(t);
    await refused(await get(photo.url.replace(shop.store.id, other.store.id)), 404, 'not_found');
    assert.equal((await get(`/media/${shop.store.id}/../x.jpg`)).status, 404);
    assert.equal((await get(`/media/not-a-store/${hashOf(photo)}.jpg`)).status, 400);
  });

  test('GIF uploads become WebP or stay GIF, never AVIF (they may be animated)', async () => {
    const gif = await uploaded(shop, await picture(400, 200).gif().toBuffer());
    const avifAsked = await get(`${gif.url}?w=160`, { accept: 'image/avif,image/webp' });
    assert.equal(avifAsked.headers.get('content-type'), 'image/webp');
    assert.deepEqual(await dimensions(avifAsked), { format: 'webp', width: 160, height: 80 });
    const plain = await get(`${gif.url}?w=160`);
    assert.equal(plain.headers.get('content-type'), 'image/gif');
  });
});

describe('the bound on resizing work', () => {
  let busy: MediaTestApp;
  before(async () => {
    busy = await startMediaTestApp({ resizeConcurrency: 1, resizeQueue: 2 });
  });
  after(() => busy.close());

  test('a flood of distinct resizes: what the queue cannot hold is 503 media_busy with Retry-After, never a 500; retried, all succeed', async () => {
    const shop = await createTestStore(busy.t);
    const form = new FormData();
    form.append('file', new Blob([await picture(2000, 1500).jpeg().toBuffer()]), 'big.jpg');
    const response = await fetch(`${busy.base}/admin/v1/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.staffToken}` },
      body: form,
    });
    assert.equal(response.status, 201);
    const media = (await response.json()) as Media;

    const urls = [160, 320, 640, 960, 1280, 1920].flatMap((w) =>
      ['image/avif', 'image/webp', 'image/jpeg'].map((accept) => ({ url: `${media.url}?w=${w}`, accept })),
    );
    const answers = await Promise.all(
      urls.map(async ({ url, accept }) => {
        const answer = await fetch(`${busy.base}${url}`, { headers: { accept } });
        const body = Buffer.from(await answer.arrayBuffer());
        return { status: answer.status, retryAfter: answer.headers.get('retry-after'), body };
      }),
    );
    const statuses = answers.map((answer) => answer.status);
    assert.ok(
      statuses.every((status) => status === 200 || status === 503),
      statuses.join(' '),
    );
    const refusedOnes = answers.filter((answer) => answer.status === 503);
    // One runs and two wait; the rest of what arrives meanwhile is refused at once.
    assert.ok(refusedOnes.length > 0, `some were refused: ${statuses.join(' ')}`);
    for (const answer of refusedOnes) {
      assert.equal(answer.retryAfter, '1');
      assert.equal((JSON.parse(answer.body.toString()) as Problem).title, 'media_busy');
    }
    // One at a time, every copy is made.
    for (const { url, accept } of urls) {
      const answer = await fetch(`${busy.base}${url}`, { headers: { accept } });
      assert.equal(answer.status, 200, `${url} ${accept}`);
      await answer.arrayBuffer();
    }
  });

  test('many requests for one copy at once wait for the one resize instead of filling the queue', async () => {
    const shop = await createTestStore(busy.t);
    const form = new FormData();
    form.append('file', new Blob([await picture(1200, 800).png().toBuffer()]), 'p.png');
    const media = (await (
      await fetch(`${busy.base}/admin/v1/media`, {
        method: 'POST',
        headers: { authorization: `Bearer ${shop.staffToken}` },
        body: form,
      })
    ).json()) as Media;
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const answer = await fetch(`${busy.base}${media.url}?w=960`, { headers: { accept: 'image/webp' } });
        await answer.arrayBuffer();
        return answer.status;
      }),
    );
    assert.deepEqual(new Set(answers), new Set([200]));
  });
});

describe('product images (decision `media-uploads`)', () => {
  let shop: TestStore;
  let front: Media;
  let back: Media;
  let side: Media;
  before(async () => {
    shop = await createTestStore(t);
    front = await uploaded(shop, await solid(800, 600).jpeg().toBuffer());
    back = await uploaded(shop, await solid(600, 800).png().toBuffer());
    side = await uploaded(shop, await solid(500, 500).webp().toBuffer());
  });

  interface AdminProduct {
    id: string;
    image: string | null;
    images: { id: string; url: string; alt: string | null; width: number; height: number }[];
    variants: { id: string; label: string; imageId: string | null }[];
  }

  test('images in order with alt text, a variant’s image, the card’s image the first; both product views show them', async () => {
    const created = await t.admin(shop).post('/products', {
      title: 'Jacket',
      status: 'active',
      images: [
        { mediaId: front.id, alt: ' Front view ' },
        { mediaId: back.id, alt: '' },
      ],
      variants: [
        { label: 'M', priceAmount: 9000, onHand: 2, imageId: back.id },
        { label: 'L', priceAmount: 9000, onHand: 2 },
      ],
    });
    assert.equal(created.statusCode, 201, created.body);
    const product = created.json<AdminProduct>();
    assert.deepEqual(product.images, [
      { id: front.id, url: front.url, alt: 'Front view', width: 800, height: 600 },
      { id: back.id, url: back.url, alt: null, width: 600, height: 800 },
    ]);
    assert.equal(product.image, front.url, 'the card image is the first');
    assert.deepEqual(
      product.variants.map((v) => [v.label, v.imageId]),
      [
        ['M', back.id],
        ['L', null],
      ],
    );

    const detail = await t.storefront(shop).get(`/products/${product.id}`);
    assert.equal(detail.statusCode, 200, detail.body);
    const shown = detail.json<AdminProduct>();
    assert.deepEqual(shown.images, product.images);
    assert.equal(shown.image, front.url);
    assert.deepEqual(
      shown.variants.map((v) => v.imageId),
      [back.id, null],
    );
    const cards = await t.storefront(shop).get('/products');
    const card = cards
      .json<{ items: { id: string; image: string | null }[] }>()
      .items.find((c) => c.id === product.id);
    assert.equal(card?.image, front.url);
    assert.deepEqual(
      (await t.admin(shop).get(`/products/${product.id}`)).json<AdminProduct>().images,
      product.images,
    );
  });

  test('reordering, alt text and removing images: the card follows, a removed image leaves its variant, each a product.updated, the storefront sees it at once', async () => {
    const created = await t.admin(shop).post('/products', {
      title: 'Boot',
      status: 'active',
      images: [{ mediaId: front.id }, { mediaId: back.id }],
      variants: [{ label: '42', priceAmount: 12000, onHand: 1, imageId: back.id }],
    });
    const product = created.json<AdminProduct>();
    const url = `/products/${product.id}`;
    // Cached by the storefront's read cache…
    assert.equal((await t.storefront(shop).get(url)).json<AdminProduct>().image, front.url);
    const events = async () =>
      (
        await t.db.kysely
          .selectFrom('events')
          .select('data')
          .where('store_id', '=', shop.store.id)
          .where('type', '=', 'product.updated')
          .execute()
      ).filter((row) => (row.data as { productId: string }).productId === product.id).length;

    const reordered = await t.admin(shop).patch(url, {
      images: [{ mediaId: back.id, alt: 'Back' }, { mediaId: side.id }, { mediaId: front.id }],
    });
    assert.equal(reordered.statusCode, 200, reordered.body);
    const after1 = reordered.json<AdminProduct>();
    assert.deepEqual(
      after1.images.map((image) => [image.id, image.alt]),
      [
        [back.id, 'Back'],
        [side.id, null],
        [front.id, null],
      ],
    );
    assert.equal(after1.image, back.url);
    assert.equal(after1.variants[0]!.imageId, back.id, 'a kept image stays the variant’s');
    assert.equal(await events(), 1);
    // …and dropped from it when the images change.
    assert.equal((await t.storefront(shop).get(url)).json<AdminProduct>().image, back.url);

    const same = await t.admin(shop).patch(url, {
      images: [{ mediaId: back.id, alt: 'Back' }, { mediaId: side.id }, { mediaId: front.id }],
    });
    assert.equal(same.statusCode, 200);
    assert.equal(await events(), 1, 'no change, no event');

    const removed = await t.admin(shop).patch(url, { images: [{ mediaId: side.id }] });
    const after2 = removed.json<AdminProduct>();
    assert.equal(after2.image, side.url);
    assert.equal(after2.variants[0]!.imageId, null, 'its image left the product');
    assert.equal(await events(), 2);

    const variant = await t.admin(shop).patch(`/variants/${after2.variants[0]!.id}`, { imageId: side.id });
    assert.equal(variant.statusCode, 200, variant.body);
    assert.equal(variant.json<{ imageId: string }>().imageId, side.id);
    assert.equal(await events(), 3);
    const notItsImage = await t
      .admin(shop)
      .patch(`/variants/${after2.variants[0]!.id}`, { imageId: front.id });
    const problem = notItsImage.json<Problem>();
    assert.equal(notItsImage.statusCode, 400);
    assert.equal(problem.errors?.[0]?.pointer, '/imageId');
    const added = await t.admin(shop).post(`${url}/variants`, {
      label: '43',
      priceAmount: 12000,
      onHand: 1,
      imageId: side.id,
    });
    assert.equal(added.statusCode, 201, added.body);
    assert.equal(added.json<{ imageId: string }>().imageId, side.id);

    const none = await t.admin(shop).patch(url, { images: [] });
    assert.deepEqual(none.json<AdminProduct>().images, []);
    assert.equal(none.json<AdminProduct>().image, null);
    assert.deepEqual(
      none.json<AdminProduct>().variants.map((v) => v.imageId),
      [null, null],
    );
    const legacy = await t.admin(shop).patch(url, { image: 'https://cdn.example/boot.jpg' });
    assert.equal(legacy.statusCode, 200, 'without images, the image URL is still taken');
    assert.equal(legacy.json<AdminProduct>().image, 'https://cdn.example/boot.jpg');
  });

  test('refused: a media of another store or none (400 with a pointer), a repeated one, more than 20, image with images, a variant image not the product’s', async () => {
    const other = await createTestStore(t);
    const theirs = await uploaded(other, await solid(30, 30).png().toBuffer());
    const attempt = (body: Record<string, unknown>) =>
      t.admin(shop).post('/products', {
        title: 'Hat',
        status: 'draft',
        variants: [{ label: 'One', priceAmount: 100, onHand: 1 }],
        ...body,
      });

    const foreign = await attempt({ images: [{ mediaId: front.id }, { mediaId: theirs.id }] });
    assert.equal(foreign.statusCode, 400, foreign.body);
    assert.deepEqual(
      foreign.json<Problem>().errors?.map((e) => e.pointer),
      ['/images/1/mediaId'],
    );
    // And the other way round: store B cannot attach store A's media, nor read it.
    const byOther = await t.admin(other).post('/products', {
      title: 'Stolen',
      status: 'draft',
      variants: [],
      images: [{ mediaId: front.id }],
    });
    assert.equal(byOther.statusCode, 400);
    assert.equal(byOther.json<Problem>().errors?.[0]?.pointer, '/images/0/mediaId');
    assert.equal((await t.admin(other).get(`/media/${front.id}`)).statusCode, 404);

    const unknown = await attempt({ images: [{ mediaId: '00000000-0000-4000-8000-000000000000' }] });
    assert.equal(unknown.json<Problem>().errors?.[0]?.pointer, '/images/0/mediaId');
    const repeated = await attempt({ images: [{ mediaId: front.id }, { mediaId: front.id }] });
    assert.equal(repeated.json<Problem>().errors?.[0]?.pointer, '/images/1/mediaId');
    const many = await attempt({ images: Array.from({ length: 21 }, () => ({ mediaId: front.id })) });
    assert.equal(many.statusCode, 400);
    const both = await attempt({ image: 'https://cdn.example/a.jpg', images: [{ mediaId: front.id }] });
    assert.equal(both.json<Problem>().errors?.[0]?.pointer, '/image');
    const variantImage = await attempt({
      images: [{ mediaId: front.id }],
      variants: [{ label: 'One', priceAmount: 100, onHand: 1, imageId: back.id }],
    });
    assert.equal(variantImage.json<Problem>().errors?.[0]?.pointer, '/variants/0/imageId');

    const made = await attempt({ images: [{ mediaId: front.id }] });
    assert.equal(made.statusCode, 201);
    const imageOverImages = await t.admin(shop).patch(`/products/${made.json<AdminProduct>().id}`, {
      image: 'https://cdn.example/b.jpg',
    });
    assert.equal(imageOverImages.statusCode, 400);
    assert.equal(imageOverImages.json<Problem>().errors?.[0]?.pointer, '/image');
    const patchForeign = await t.admin(shop).patch(`/products/${made.json<AdminProduct>().id}`, {
      images: [{ mediaId: theirs.id }],
    });
    assert.equal(patchForeign.json<Problem>().errors?.[0]?.pointer, '/images/0/mediaId');
  });

  test('deleting a product with images and variant images leaves its media', async () => {
    const created = await t.admin(shop).post('/products', {
      title: 'Scarf',
      status: 'active',
      images: [{ mediaId: side.id }],
      variants: [{ label: 'One', priceAmount: 100, onHand: 1, imageId: side.id }],
    });
    const id = created.json<AdminProduct>().id;
    assert.equal((await t.admin(shop).delete(`/products/${id}`)).statusCode, 204);
    assert.equal((await t.admin(shop).get(`/media/${side.id}`)).statusCode, 200);
  });
});
