import type { Agent, request } from 'undici';
import { precheckUrl } from './webhooks.sender.ts';
import { guardedLookup } from './webhooks.url-guard.ts';

/**
 * GETs a file from a URL a merchant gave (an import's `Image Src`: decision `csv-imports`) under
 * the webhooks' address rules: https only (plain http to loopback only with ALLOW_HTTP_WEBHOOKS),
 * no private, link-local or metadata address, checked at connect time on the addresses the socket
 * then uses; no redirects followed; at most `maxBytes`, read as they arrive and cut off past it;
 * within `timeoutMs` for the whole exchange.
 */
export class GuardedDownloader {
  readonly #allowHttp: boolean;
  readonly #timeoutMs: number;
  #agents: Promise<{ https: Agent; http: Agent; request: typeof request }> | null = null;

  constructor(options: { allowHttp: boolean; timeoutMs: number }) {
    this.#allowHttp = options.allowHttp;
    this.#timeoutMs = options.timeoutMs;
  }

  #client() {
    this.#agents ??= import('undici').then(({ Agent, request }) => {
      const agent = (allowLoopback: boolean, loopbackOnly: boolean) =>
        new Agent({
          connect: { lookup: guardedLookup({ allowLoopback, loopbackOnly }), timeout: this.#timeoutMs },
          headersTimeout: this.#timeoutMs,
          bodyTimeout: this.#timeoutMs,
        });
      return { https: agent(this.#allowHttp, false), http: agent(true, true), request };
    });
    return this.#agents;
  }

  /** The body, or why there is none (a sentence for the merchant; no stack, no internals). */
  async get(raw: string, maxBytes: number): Promise<{ body: Buffer } | { refused: string }> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { refused: 'is not a URL' };
    }
    if (url.username !== '' || url.password !== '') return { refused: 'must not contain credentials' };
    const precheck = precheckUrl(url, this.#allowHttp);
    if (precheck) return { refused: precheck };
    const client = await this.#client();
    const signal = AbortSignal.timeout(this.#timeoutMs);
    try {
      const response = await client.request(url, {
        method: 'GET',
        dispatcher: url.protocol === 'https:' ? client.https : client.http,
        signal,
        headers: { accept: 'image/*' },
      });
      if (response.statusCode !== 200) {
        await response.body.dump();
        return { refused: `answered HTTP ${response.statusCode}` };
      }
      const declared = Number(response.headers['content-length'] ?? Number.NaN);
      if (declared > maxBytes) {
        await response.body.dump();
        return { refused: `is larger than ${maxBytes} bytes` };
      }
      const parts: Buffer[] = [];
      let size = 0;
      for await (const part of response.body as AsyncIterable<Buffer>) {
        size += part.length;
        if (size > maxBytes) {
          response.body.destroy();
          return { refused: `is larger than ${maxBytes} bytes` };
        }
        parts.push(part);
      }
      return { body: Buffer.concat(parts) };
    } catch (error) {
      if (signal.aborted) return { refused: `did not answer within ${this.#timeoutMs} ms` };
      const code = (error as { code?: string }).code;
      if (code === 'ERR_WEBHOOK_ADDRESS_REFUSED') return { refused: (error as Error).message };
      return { refused: `could not be fetched (${code ?? 'connection failed'})` };
    }
  }

  async close(): Promise<void> {
    if (!this.#agents) return;
    const { https, http } = await this.#agents;
    await Promise.all([https.close(), http.close()]);
  }
}
