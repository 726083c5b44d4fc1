/**
 * What an upload keeps and how media is answered (issue 42; decisions `media-without-metadata`,
 * `media-pixel-bound`, `media-response-headers`): real files with a GPS position, a name, comments,
 * text chunks and bytes after the image's end planted in every place their format has, uploaded
 * over HTTP; the bytes served (the upload and its resized copies) hold none of them. Animation,
 * palettes and lossless WebP survive. Every answer under /media carries its headers. An image over
 * MEDIA_MAX_PIXELS (fewer for formats that cost more memory per pixel) is refused from its header.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import sharp, { type WebpOptions } from 'sharp';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../test/harness.ts';
import { pngChunk, startMediaTestApp, type MediaTestApp } from './media.test-support.ts';

interface Media {
  id: string;
  url: string;
  width: number;
  height: number;
  bytes: number;
}

/** What is planted: a GPS position, a person's name, and what a polyglot hides after an image. */
const GPS = '48.858370';
const NAME = 'Jane Merchant';
const SECRET = `GPS ${GPS} N 2.294481 E by ${NAME}`;
const TRAILERS = [
  Buffer.from('<html><body><script>alert(document.cookie)</script></body></html>'),
  Buffer.from(`PK\x03\x04\x14\x00\x00\x00\x00\x00secret.txt${SECRET}PK\x05\x06`, 'latin1'),
];
const PLANTED = [GPS, NAME, '<html>', '<script>', 'PK\x03\x04', 'secret.txt'];

function plantedIn(bytes: Buffer): string[] {
  return PLANTED.filter((text) => bytes.includes(Buffer.from(text, 'latin1')));
}

const picture = (width = 64, height = 48) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 90, b: 40 } } });

const EXIF = {
  IFD0: { Artist: NAME, Copyright: NAME, ImageDescription: SECRET },
  IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 3013/100', GPSLongitudeRef: 'E' },
};
const XMP = `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="${GPS}N"><dc:creator>${NAME}</dc:creator></rdf:Description></rdf:RDF></x:xmpmeta>`;

/** A JPEG segment: marker, big-endian length (itself included), payload. */
function jpegSegment(marker: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(0xff00 | marker);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

/** IPTC in a Photoshop APP13 segment: an 8BIM 0x0404 resource holding dataset 2:80 (by-line). */
function iptcSegment(): Buffer {
  const byline = Buffer.from(NAME);
  const dataset = Buffer.concat([Buffer.from([0x1c, 0x02, 0x50, 0, byline.length]), byline]);
  const size = Buffer.alloc(4);
  size.writeUInt32BE(dataset.length);
  const resource = Buffer.concat([Buffer.from('8BIM\x04\x04\x00\x00', 'latin1'), size, dataset]);
  return jpegSegment(0xed, Buffer.concat([Buffer.from('Photoshop 3.0\0', 'latin1'), resource]));
}

/**
 * Each format's file with what is planted in it: comments, text and bytes after its end, and with
 * `metadata` its EXIF (GPS, artist), XMP and IPTC too. The service used to clean only a file with
 * EXIF, XMP or IPTC, so a file without them kept everything else.
 */
interface Planting {
  metadata: boolean;
}

/** A JPEG with two comments and trailing bytes (and EXIF, XMP, IPTC). */
async function plantedJpeg({ metadata }: Planting): Promise<Buffer> {
  const plain = picture().jpeg();
  const jpeg = await (metadata ? plain.withExif(EXIF).withXmp(XMP) : plain).toBuffer();
  return Buffer.concat([
    jpeg.subarray(0, 2), // SOI
    jpegSegment(0xfe, Buffer.from(SECRET)),
    ...(metadata ? [iptcSegment()] : []),
    jpeg.subarray(2, -2),
    jpegSegment(0xfe, Buffer.from(`second comment: ${NAME}`)),
    jpeg.subarray(-2), // EOI
    ...TRAILERS,
  ]);
}

/** A PNG with tEXt, zTXt and iTXt chunks, a private chunk and trailing bytes (and eXIf, XMP). */
async function plantedPng({ metadata }: Planting, base?: Buffer): Promise<Buffer> {
  const png = base ?? (await (metadata ? picture().png().withExif(EXIF) : picture().png()).toBuffer());
  const afterHeader = 8 + 25; // signature, IHDR
  return Buffer.concat([
    png.subarray(0, afterHeader),
    pngChunk('tEXt', Buffer.from(`Comment\0${SECRET}`, 'latin1')),
    pngChunk('zTXt', Buffer.concat([Buffer.from('Author\0\0', 'latin1'), zlib.deflateSync(NAME)])),
    pngChunk('iTXt', Buffer.from(metadata ? `XML:com.adobe.xmp\0\0\0\0\0${XMP}` : `Title\0\0\0\0\0${NAME}`)),
    pngChunk('prVt', Buffer.from(SECRET)),
    png.subarray(afterHeader, -12),
    pngChunk('tEXt', Buffer.from(`Location\0${GPS}`, 'latin1')),
    png.subarray(-12), // IEND
    ...TRAILERS,
  ]);
}

/** GIF sub-blocks: data in pieces of at most 255 bytes, each with its length, then a 0. */
function subBlocks(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < data.length; i += 255) {
    const piece = data.subarray(i, i + 255);
    parts.push(Buffer.from([piece.length]), piece);
  }
  return Buffer.concat([...parts, Buffer.from([0])]);
}

/** A GIF with comment extensions and trailing bytes (and an XMP application extension). */
async function plantedGif({ metadata }: Planting, base?: Buffer): Promise<Buffer> {
  const gif = base ?? (await picture().gif().toBuffer());
  const flags = gif[10]!;
  const afterScreen = 13 + (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0);
  const comment = (text: string) => Buffer.concat([Buffer.from([0x21, 0xfe]), subBlocks(Buffer.from(text))]);
  const xmp = Buffer.concat([
    Buffer.from([0x21, 0xff, 11]),
    Buffer.from('XMP DataXMP'),
    subBlocks(Buffer.from(XMP)),
  ]);
  return Buffer.concat([
    gif.subarray(0, afterScreen),
    comment(SECRET),
    ...(metadata ? [xmp] : []),
    gif.subarray(afterScreen, -1),
    comment(`at the end: ${NAME}`),
    gif.subarray(-1), // trailer
    ...TRAILERS,
  ]);
}

/** A WebP with an unknown chunk and trailing bytes past its RIFF size (and EXIF, XMP chunks). */
async function plantedWebp({ metadata }: Planting, options: WebpOptions = {}): Promise<Buffer> {
  const plain = picture().webp(options);
  const webp = await (metadata ? plain.withExif(EXIF).withXmp(XMP) : plain).toBuffer();
  const data = Buffer.from(SECRET);
  const unknown = Buffer.concat([Buffer.from('ZZZZ'), Buffer.alloc(4), data, Buffer.alloc(data.length % 2)]);
  unknown.writeUInt32LE(data.length, 4);
  const riff = Buffer.concat([webp, unknown]);
  riff.writeUInt32LE(riff.length - 8, 4);
  return Buffer.concat([riff, ...TRAILERS]);
}

/** An AVIF with trailing bytes (and EXIF, XMP). */
async function plantedAvif({ metadata }: Planting): Promise<Buffer> {
  const plain = picture().avif();
  return Buffer.concat([
    await (metadata ? plain.withExif(EXIF).withXmp(XMP) : plain).toBuffer(),
    ...TRAILERS,
  ]);
}

/** Three frames, 40 × 30, that differ, with their own delays, looping twice. */
async function animation(format: 'gif' | 'webp'): Promise<Buffer> {
  const frames = await Promise.all(
    [0, 1, 2].map((i) =>
      sharp({
        create: { width: 40, height: 30, channels: 3, background: { r: i * 120, g: 40, b: 200 - i * 60 } },
      })
        .raw()
        .toBuffer(),
    ),
  );
  const strip = sharp(Buffer.concat(frames), { raw: { width: 40, height: 90, channels: 3, pageHeight: 30 } });
  const timing = { loop: 2, delay: [100, 250, 400] };
  return format === 'gif'
    ? strip.gif(timing).toBuffer()
    : strip.webp({ ...timing, lossless: true }).toBuffer();
}

let t: TestApp;
let base: string;
let shop: TestStore;
before(async () => {
  t = await startTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  shop = await createTestStore(t);
});
after(() => t.close());

async function upload(target: string, store: TestStore, bytes: Buffer): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([bytes]), 'upload.bin');
  return fetch(`${target}/admin/v1/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${store.staffToken}` },
    body: form,
  });
}

async function uploaded(bytes: Buffer): Promise<Media> {
  const response = await upload(base, shop, bytes);
  const body = await response.text();
  assert.equal(response.status, 201, body);
  return JSON.parse(body) as Media;
}

async function served(url: string, accept?: string): Promise<Buffer> {
  const response = await fetch(`${base}${url}`, accept ? { headers: { accept } } : {});
  assert.equal(response.status, 200, url);
  return Buffer.from(await response.arrayBuffer());
}

describe('what an upload keeps: its pixels, nothing else', () => {
  const cases: [string, (planting: Planting) => Promise<Buffer>][] = [
    ['JPEG (comments, HTML and ZIP after the end; EXIF with GPS, XMP, IPTC)', plantedJpeg],
    ['PNG (tEXt, zTXt, iTXt, a private chunk, HTML and ZIP after IEND; eXIf, XMP)', (p) => plantedPng(p)],
    ['GIF (comment extensions, HTML and ZIP after the trailer; an XMP extension)', (p) => plantedGif(p)],
    ['WebP (an unknown chunk, HTML and ZIP past the RIFF size; EXIF, XMP)', (p) => plantedWebp(p)],
    ['AVIF (HTML and ZIP after the file; EXIF, XMP)', plantedAvif],
  ];
  for (const [name, make] of cases)
    for (const metadata of [false, true])
      test(`${name.replace(/;.*\)/, metadata ? '$&' : ')')}: neither the served upload nor a resized copy holds any of it`, async () => {
        const bytes = await make({ metadata });
        assert.deepEqual(plantedIn(bytes), PLANTED, 'the upload carries everything planted');
        const media = await uploaded(bytes);
        const original = await served(media.url);
        assert.deepEqual(plantedIn(original), [], 'the served upload');
        assert.equal(media.bytes, original.length);
        const kept = await sharp(original).metadata();
        for (const kind of ['exif', 'xmp', 'iptc', 'icc', 'comments'] as const)
          assert.equal(kept[kind], undefined, `no ${kind}`);
        assert.deepEqual([kept.width, kept.height], [64, 48]);
        for (const accept of ['image/avif,image/webp', 'image/webp', '*/*'])
          assert.deepEqual(plantedIn(await served(`${media.url}?w=160`, accept)), [], `a copy for ${accept}`);
      });

  test('a JPEG with a Display P3 profile is kept in sRGB, without the profile', async () => {
    const p3 = await picture().jpeg().withIccProfile('p3').toBuffer();
    assert.ok((await sharp(p3).metadata()).icc, 'the upload has a profile');
    const kept = await sharp(await served((await uploaded(p3)).url)).metadata();
    assert.equal(kept.icc, undefined);
    assert.equal(kept.space, 'srgb');
  });

  test('an animated GIF and WebP stay animated, frame for frame, with their timing', async () => {
    for (const format of ['gif', 'webp'] as const) {
      const clean = await animation(format);
      const bytes = format === 'gif' ? await plantedGif({ metadata: false }, clean) : clean;
      const kept = await served((await uploaded(bytes)).url);
      assert.deepEqual(plantedIn(kept), []);
      const before = await sharp(clean).metadata();
      const after = await sharp(kept).metadata();
      assert.equal(after.format, format);
      assert.deepEqual([after.pages, after.loop, after.delay], [3, 2, [100, 250, 400]], format);
      assert.deepEqual([after.pages, after.loop, after.delay], [before.pages, before.loop, before.delay]);
      const pixels = (input: Buffer) => sharp(input, { animated: true }).raw().toBuffer();
      assert.deepEqual(await pixels(kept), await pixels(clean), `${format}: the same pixels in every frame`);
    }
  });

  test('a palette PNG and a lossless WebP are kept without loss; a palette PNG keeps its palette', async () => {
    const palette = await plantedPng(
      { metadata: false },
      await picture(120, 80).png({ palette: true, colours: 16 }).toBuffer(),
    );
    const keptPalette = await served((await uploaded(palette)).url);
    assert.equal((await sharp(keptPalette).metadata()).isPalette, true);
    const lossless = await plantedWebp({ metadata: true }, { lossless: true });
    const keptLossless = await served((await uploaded(lossless)).url);
    assert.ok(keptLossless.includes('VP8L'), 'a lossless WebP');
    for (const [kept, upload] of [
      [keptPalette, palette],
      [keptLossless, lossless],
    ] as const)
      assert.deepEqual(await sharp(kept).raw().toBuffer(), await sharp(upload).raw().toBuffer());
  });

  test('the same file uploaded twice is the same media (encoding it again is deterministic)', async () => {
    const bytes = await plantedJpeg({ metadata: true });
    assert.equal((await uploaded(bytes)).id, (await uploaded(bytes)).id);
  });
});

describe('the headers of every answer under /media', () => {
  test('the upload, a copy, 304, HEAD, 400 and 404 all carry CSP (none, sandboxed), inline and nosniff', async () => {
    const media = await uploaded(await picture().png().toBuffer());
    const hash = /([0-9a-f]{64})\./.exec(media.url)![1]!;
    const answers = [
      [200, await fetch(`${base}${media.url}`)],
      [200, await fetch(`${base}${media.url}?w=160`, { headers: { accept: 'image/webp' } })],
      [304, await fetch(`${base}${media.url}`, { headers: { 'if-none-match': `"${hash}"` } })],
      [200, await fetch(`${base}${media.url}`, { method: 'HEAD' })],
      [400, await fetch(`${base}${media.url}?w=400`)],
      [404, await fetch(`${base}/media/${shop.store.id}/${'0'.repeat(64)}.png`)],
      [400, await fetch(`${base}/media/not-a-store/${hash}.png`)],
    ] as const;
    for (const [status, response] of answers) {
      await response.arrayBuffer();
      assert.equal(response.status, status, response.url);
      assert.equal(
        response.headers.get('content-security-policy'),
        "default-src 'none'; sandbox",
        response.url,
      );
      assert.equal(response.headers.get('content-disposition'), 'inline', response.url);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff', response.url);
    }
  });
});

describe('MEDIA_MAX_PIXELS: read from the header, before anything is decoded', () => {
  let small: MediaTestApp;
  let smallShop: TestStore;
  before(async () => {
    small = await startMediaTestApp({ maxPixels: 1_000_000, resizeConcurrency: 1, resizeQueue: 0 });
    smallShop = await createTestStore(small.t);
  });
  after(() => small.close());

  async function refused(bytes: Buffer, pattern: RegExp): Promise<void> {
    const response = await upload(small.base, smallShop, bytes);
    const body = await response.text();
    assert.equal(response.status, 413, body);
    assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
    const problem = JSON.parse(body) as { title: string; detail: string };
    assert.equal(problem.title, 'image_too_large');
    assert.match(problem.detail, pattern);
  }
  const taken = async (bytes: Buffer) =>
    assert.equal((await upload(small.base, smallShop, bytes)).status, 201);

  test('a JPEG or PNG up to MEDIA_MAX_PIXELS is taken; one pixel row more is 413 with the sizes', async () => {
    await taken(await picture(1000, 1000).jpeg().toBuffer());
    await refused(
      await picture(1000, 1001).png().toBuffer(),
      /1000×1001 pixels; at most 1 megapixels are taken \(MEDIA_MAX_PIXELS\)/,
    );
  });

  test('refused without decoding: a header of 2000 × 2000 over pixels that are not there is 413, not 415', async () => {
    /** A PNG whose header says `size` × `size` over a chunk of data that is no pixels. */
    const lying = async (size: number) => {
      const png = await picture(8, 8).png().toBuffer();
      const header = Buffer.from(png.subarray(8, 33));
      header.writeUInt32BE(size, 8);
      header.writeUInt32BE(size, 12);
      header.writeUInt32BE(zlib.crc32(header.subarray(4, 21)), 21);
      return Buffer.concat([
        png.subarray(0, 8),
        header,
        pngChunk('IDAT', Buffer.from('not pixels')),
        png.subarray(-12),
      ]);
    };
    await refused(await lying(2000), /2000×2000 pixels; at most 1 megapixels/);
    // The same lie within the bound is decoded, and found out.
    const response = await upload(small.base, smallShop, await lying(100));
    assert.equal(response.status, 415, await response.text());
  });

  test('formats whose cleaning costs more memory per pixel take fewer: AVIF, WebP, GIF (all frames), 16-bit PNG', async () => {
    // 1,000,000 JPEG pixels' worth of memory: AVIF 222,222, WebP 615,384, GIF 500,000, 16-bit PNG 500,000.
    await taken(await picture(400, 400).avif().toBuffer());
    await refused(
      await picture(500, 500).avif().toBuffer(),
      /500×500 pixels; an AVIF is taken up to 0.2 megapixels/,
    );
    await taken(await picture(700, 800).webp().toBuffer());
    await refused(await picture(800, 800).webp().toBuffer(), /WebP is taken up to 0.6 megapixels/);
    await taken(await picture(700, 700).toColourspace('rgb16').png().toBuffer());
    await refused(
      await picture(800, 800).toColourspace('rgb16').png().toBuffer(),
      /800×800 pixels; a 16-bit PNG is taken up to 0.5 megapixels/,
    );
    // Six frames that differ (identical ones would be merged into one by the encoder).
    const frames = await Promise.all(
      [0, 1, 2, 3, 4, 5].map((i) =>
        sharp({ create: { width: 300, height: 300, channels: 3, background: { r: i * 40, g: 90, b: 200 } } })
          .raw()
          .toBuffer(),
      ),
    );
    const strip = await sharp(Buffer.concat(frames), {
      raw: { width: 300, height: 1800, channels: 3, pageHeight: 300 },
    })
      .gif()
      .toBuffer();
    await refused(strip, /300×300 pixels in 6 frames; a GIF is taken up to 0.5 megapixels/);
  });
});
