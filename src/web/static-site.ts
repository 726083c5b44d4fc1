/**
 * Serves a built single-page app (the merchant console at /admin; the reference shop at /shop) from its
 * Vite output directory: every file is read once at start-up and kept in memory with its gzip and
 * brotli forms, hashed assets are cached for a year, `index.html` is revalidated by ETag, and any
 * other path under the prefix without a file extension answers `index.html`, so deep links work.
 * No wildcard route: it answers only what no API route matched (a not-found fallback), so
 * `/admin/v1/…` keeps its problem+json 404s and 405s.
 *
 * Every answer carries the security headers of every page (http/security-headers.ts), with a
 * Content-Security-Policy without inline scripts or styles and no third-party origin.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { addNotFoundFallback } from '../http/errors.ts';
import { contentSecurityPolicy, pageSecurityHeaders } from '../http/security-headers.ts';
import { escapeHtml } from '../lib/html.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webmanifest': 'application/manifest+json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** The Content-Security-Policy of the built apps: only this origin; images also from https (product images). */
export const SITE_CSP = contentSecurityPolicy({
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'https:', 'data:'],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
});

const SECURITY_HEADERS = pageSecurityHeaders(SITE_CSP);

interface SiteFile {
  body: Buffer;
  compressible: boolean;
  /** Made on first request and kept (start-up stays fast; tests never pay for them). */
  gzip?: Buffer;
  brotli?: Buffer;
  type: string;
  etag: string;
  immutable: boolean;
}

function siteFile(relative: string, body: Buffer): SiteFile {
  const type = TYPES[path.extname(relative)] ?? 'application/octet-stream';
  return {
    body,
    compressible: /^(text\/|application\/(json|manifest)|image\/svg)/.test(type) && body.length > 512,
    type,
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
    immutable: relative.startsWith(`assets${path.sep}`),
  };
}

function readSite(dir: string): Map<string, SiteFile> {
  const files = new Map<string, SiteFile>();
  for (const relative of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const full = path.join(dir, relative);
    if (!fs.statSync(full).isFile() || path.basename(relative).startsWith('.')) continue;
    files.set('/' + relative.split(path.sep).join('/'), siteFile(relative, fs.readFileSync(full)));
  }
  return files;
}

function send(request: FastifyRequest, reply: FastifyReply, file: SiteFile): FastifyReply {
  void reply
    .code(200)
    .headers(SECURITY_HEADERS)
    .header('content-type', file.type)
    .header('etag', file.etag)
    .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
    .header('vary', 'accept-encoding');
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  const accepted = String(request.headers['accept-encoding'] ?? '');
  if (file.compressible && /\bbr\b/.test(accepted)) {
    file.brotli ??= zlib.brotliCompressSync(file.body, {
      params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 },
    });
    return reply.header('content-encoding', 'br').send(file.brotli);
  }
  if (file.compressible && /\bgzip\b/.test(accepted)) {
    file.gzip ??= zlib.gzipSync(file.body, { level: 9 });
    return reply.header('content-encoding', 'gzip').send(file.gzip);
  }
  return reply.send(file.body);
}

export interface StaticSiteOptions {
  /** Where the app is served, e.g. `/admin`. */
  prefix: string;
  /** The build output directory (with index.html). */
  dir: string;
  /** Paths under the prefix that belong to the API, never to the app (e.g. `/admin/v1/`). */
  apiPrefixes: readonly string[];
  /** What to say when the directory holds no build. */
  name: string;
  /**
   * `<meta name content>` tags written into index.html's head when it is served (the shop's
   * publishable key and API address), read on each request so a value set after start-up shows.
   */
  meta?: () => Record<string, string | null>;
}

/** index.html with the meta tags in its head; one SiteFile per distinct set of values. */
function withMeta(index: SiteFile, meta: () => Record<string, string | null>): () => SiteFile {
  const made = new Map<string, SiteFile>();
  return () => {
    const tags = Object.entries(meta())
      .filter((entry): entry is [string, string] => entry[1] !== null)
      .map(([name, content]) => `<meta name="${escapeHtml(name)}" content="${escapeHtml(content)}" />`)
      .join('\n    ');
    let file = made.get(tags);
    if (!file) {
      const html = index.body.toString('utf8').replace('</head>', `  ${tags}\n  </head>`);
      file = siteFile('index.html', Buffer.from(html, 'utf8'));
      if (made.size > 16) made.clear();
      made.set(tags, file);
    }
    return file;
  };
}

/** Serves the app; when it is not built, every page under the prefix is a 503 problem saying how to build it. */
export function registerStaticSite(app: FastifyInstance, options: StaticSiteOptions): { files: number } {
  const { prefix, dir, apiPrefixes } = options;
  const built = fs.existsSync(path.join(dir, 'index.html'));
  const files = built ? readSite(dir) : new Map<string, SiteFile>();
  const stored = files.get('/index.html');
  const index = stored && options.meta ? withMeta(stored, options.meta) : stored && (() => stored);

  addNotFoundFallback(app, (request, reply) => {
    const url = request.url.split('?')[0] ?? '/';
    if (url !== prefix && !url.startsWith(`${prefix}/`)) return null;
    if (apiPrefixes.some((api) => url.startsWith(api))) return null;
    if (url === prefix) return reply.redirect(`${prefix}/`, 308);
    if (!index) {
      return reply
        .code(503)
        .type('application/problem+json')
        .send({
          type: 'about:blank',
          title: 'service_unavailable',
          status: 503,
          detail: `The ${options.name} is not built: run \`npm run ui:build\` (npm ci and npm start build it).`,
        });
    }
    let rest: string;
    try {
      rest = decodeURIComponent(url.slice(prefix.length));
    } catch {
      return null;
    }
    if (rest === '/' || rest === '/index.html') return send(request, reply, index());
    const file = files.get(rest);
    if (file) return send(request, reply, file);
    // A deep link (no file extension) is the app's; a missing asset is a 404.
    if (path.posix.extname(rest) === '') return send(request, reply, index());
    return null;
  });
  return { files: files.size };
}
