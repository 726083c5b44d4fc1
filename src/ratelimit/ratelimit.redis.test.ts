/**
 * Counters shared through Redis, and what happens when Redis is not there. Uses REDIS_URL, else a
 * Redis on 127.0.0.1:6379 if one answers; without any Redis each test asserts the memory path.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import type { RateLimitConfig } from '../config.ts';
import type { Db } from '../db/database.ts';
import { createTestStore, openTestDatabase, waitFor, type TestApp } from '../test/harness.ts';
import { MemoryCounterStore } from './ratelimit.memory-store.ts';
import { RedisCounterStore } from './ratelimit.redis-store.ts';
import type { CounterStore } from './ratelimit.store.ts';
import { startRateLimitedApp } from './ratelimit.test-support.ts';

const LOCAL_REDIS = 'redis://127.0.0.1:6379';
const DEAD_REDIS = 'redis://127.0.0.1:1';
const UNAVAILABLE = /Redis for rate limits is unavailable/;
const RECOVERED = /Redis for rate limits answers again/;

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379) });
    socket.setTimeout(300);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The Redis these tests use: REDIS_URL, else a local one if it answers, else none. */
const redisUrl = process.env.REDIS_URL ?? ((await reachable(LOCAL_REDIS)) ? LOCAL_REDIS : null);

let db: Db;
before(async () => {
  db = await openTestDatabase();
});
after(() => db.close());

function startApp(redis: string | null, rateLimits: Partial<RateLimitConfig>): Promise<TestApp> {
  return startRateLimitedApp(db, rateLimits, { redisUrl: redis });
}

const get = (t: TestApp, key: string) =>
  t.app.inject({ method: 'GET', url: '/storefront/v1/store', headers: { 'x-publishable-key': key } });

function budget(response: LightMyRequestResponse): [number, number, number] {
  return [
    response.statusCode,
    Number(response.headers['ratelimit-limit']),
    Number(response.headers['ratelimit-remaining']),
  ];
}

function capturingLog() {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() !== '') lines.push(JSON.parse(line) as { level: number; msg: string });
      }
      callback();
    },
  });
  return { log: pino({ level: 'info' }, stream), lines };
}

const warnings = (logs: Record<string, unknown>[], pattern: RegExp) =>
  logs.filter((line) => line.level === 40 && pattern.test(String(line.msg)));

/** A Redis that is down: every connection to its port is reset at once, and counted (an attempt). */
async function downRedis(): Promise<{ url: string; attempts(): number; close(): Promise<void> }> {
  let attempts = 0;
  const server = net.createServer((socket) => {
    attempts += 1;
    socket.resetAndDestroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    attempts: () => attempts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A TCP proxy in front of Redis that can be cut and restored, or hold commands, to play outages. */
class TcpProxy {
  readonly #target: URL;
  readonly #sockets = new Set<net.Socket>();
  #server: net.Server | null = null;
  #held: [net.Socket, Buffer][] | null = null;
  port = 0;

  constructor(target: string) {
    this.#target = new URL(target);
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect({ host: this.#target.hostname, port: Number(this.#target.port || 6379) });
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.on('data', (chunk: Buffer) => {
        if (this.#held) this.#held.push([upstream, chunk]);
        else upstream.write(chunk);
      });
      upstream.pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as net.AddressInfo).port;
    this.#server = server;
  }

  /** Redis seems to hang: commands are held back (not lost) until `release`. */
  hold(): void {
    this.#held = [];
  }

  release(): void {
    const held = this.#held ?? [];
    this.#held = null;
    for (const [upstream, chunk] of held) upstream.write(chunk);
  }

  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    for (const socket of this.#sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe(`rate-limit counters (${redisUrl ? `Redis at ${new URL(redisUrl).host}` : 'no Redis reachable'})`, () => {
  test(
    redisUrl
      ? 'two processes on one Redis share one budget'
      : 'without Redis each process counts its own budget in memory',
    async () => {
      const first = await startApp(redisUrl, { publicRead: 4 });
      const second = await startApp(redisUrl, { publicRead: 4 });
      // One window for both: each app's clock started at its own start-up, maybe across a boundary.
      const ahead = first.clock.now().getTime() - second.clock.now().getTime();
      (ahead > 0 ? second : first).clock.advance(Math.abs(ahead));
      try {
        const shop = await createTestStore(first);
        const key = shop.publishableKey;
        assert.deepEqual(budget(await get(first, key)), [200, 4, 3]);
        assert.deepEqual(budget(await get(first, key)), [200, 4, 2]);
        if (redisUrl) {
          assert.deepEqual(budget(await get(second, key)), [200, 4, 1]);
          assert.deepEqual(budget(await get(second, key)), [200, 4, 0]);
          assert.deepEqual(budget(await get(first, key)), [429, 4, 0]);
          assert.deepEqual(budget(await get(second, key)), [429, 4, 0]);
        } else {
          assert.deepEqual(budget(await get(second, key)), [200, 4, 3]);
          assert.deepEqual(budget(await get(first, key)), [200, 4, 1]);
          assert.deepEqual(budget(await get(first, key)), [200, 4, 0]);
          assert.deepEqual(budget(await get(first, key)), [429, 4, 0]);
        }
        for (const t of [first, second]) assert.deepEqual(warnings(t.logs, UNAVAILABLE), []);
      } finally {
        await first.close();
        await second.close();
      }
    },
  );

  test(
    redisUrl
      ? 'the Redis script counts atomically under concurrency, from two connections'
      : 'the memory store counts every concurrent hit once',
    async () => {
      const { log, lines } = capturingLog();
      const stores: CounterStore[] = redisUrl
        ? [new RedisCounterStore(redisUrl, log), new RedisCounterStore(redisUrl, log)]
        : [new MemoryCounterStore()];
      await Promise.all(stores.map((store) => store.start()));
      const prefix = `storefront:rl-test:${randomUUID()}`;
      try {
        const now = Date.now();
        const hit = (store: CounterStore, ip: string, ipLimit: number) =>
          store.hit({
            keyCounter: `${prefix}:key`,
            ipCounter: `${prefix}:ip:${ip}`,
            ipLimit,
            windowEndsAt: now + 60_000,
            now,
          });
        const counts = await Promise.all(
          Array.from({ length: 200 }, (_, i) => hit(stores[i % stores.length]!, `c${i % 4}`, 1000)),
        );
        assert.deepEqual(
          counts.map((c) => c.key).sort((a, b) => a - b),
          Array.from({ length: 200 }, (_, i) => i + 1),
        );
        // A client over its sub-limit is counted, but does not spend the key's budget.
        assert.deepEqual(await hit(stores[0]!, 'c9', 1), { key: 201, ip: 1 });
        assert.deepEqual(await hit(stores[0]!, 'c9', 1), { key: 201, ip: 2 });
        assert.deepEqual(await hit(stores.at(-1)!, 'c9', 1), { key: 201, ip: 3 });
        if (redisUrl) {
          const inspect = new Redis(redisUrl);
          try {
            assert.equal(await inspect.get(`${prefix}:key`), '201');
            const ttl = await inspect.pttl(`${prefix}:ip:c9`);
            assert.ok(ttl > 60_000 && ttl <= 65_000, `${ttl}`);
          } finally {
            inspect.disconnect();
          }
        }
        assert.deepEqual(lines, []);
      } finally {
        await Promise.all(stores.map((store) => store.close()));
      }
    },
  );

  test('with Redis down requests are served, still limited per process, and one warning is logged', async () => {
    const down = await downRedis();
    const t = await startApp(down.url, { publicRead: 3 });
    try {
      const shop = await createTestStore(t);
      assert.deepEqual(budget(await get(t, shop.publishableKey)), [200, 3, 2]);
      assert.deepEqual(budget(await get(t, shop.publishableKey)), [200, 3, 1]);
      const attempts = down.attempts();
      await waitFor(() => down.attempts() >= attempts + 2, 5000, 'two more reconnection attempts');
      assert.deepEqual(budget(await get(t, shop.publishableKey)), [200, 3, 0]);
      assert.deepEqual(budget(await get(t, shop.publishableKey)), [429, 3, 0]);
      assert.equal(warnings(t.logs, UNAVAILABLE).length, 1, 'one warning per outage, not per request');
      for (const line of warnings(t.logs, UNAVAILABLE)) {
        assert.equal(typeof line.err, 'string', 'the error as its message');
        assert.doesNotMatch(JSON.stringify(line), /stack|\\n\s+at /, 'no stack trace in the warning');
      }
    } finally {
      await t.close();
      await down.close();
    }

    // A dead Redis costs a call no waiting: no offline queue, no retries per command.
    const { log, lines } = capturingLog();
    const store = new RedisCounterStore(DEAD_REDIS, log);
    await store.start();
    try {
      const started = performance.now();
      const now = Date.now();
      for (let i = 0; i < 1000; i++) {
        await store.hit({
          keyCounter: 'k',
          ipCounter: `ip${i % 10}`,
          ipLimit: 1000,
          windowEndsAt: now + 1000,
          now,
        });
      }
      const elapsed = performance.now() - started;
      assert.ok(elapsed < 250, `1000 calls took ${elapsed.toFixed(0)} ms`);
      assert.equal(lines.filter((line) => UNAVAILABLE.test(line.msg)).length, 1);
    } finally {
      await store.close();
    }
  });

  test('a server that accepts connections but never answers does not hold up start or requests', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { log, lines } = capturingLog();
    const store = new RedisCounterStore(
      `redis://127.0.0.1:${(silent.address() as net.AddressInfo).port}`,
      log,
      { connectTimeoutMs: 200 },
    );
    try {
      let started = performance.now();
      await store.start();
      assert.ok(performance.now() - started < 1000, 'start gave up waiting');
      started = performance.now();
      const now = Date.now();
      assert.deepEqual(
        await store.hit({ keyCounter: 'k', ipCounter: 'ip', ipLimit: 5, windowEndsAt: now + 1000, now }),
        { key: 1, ip: 1 },
      );
      assert.ok(performance.now() - started < 50, 'counted in memory at once');
      assert.equal(lines.filter((line) => UNAVAILABLE.test(line.msg)).length, 1);
    } finally {
      await store.close();
      silent.close();
    }
  });

  test(
    redisUrl
      ? 'an outage falls back to memory, and counters are shared again once Redis is back'
      : 'without Redis a long outage is still one warning, across reconnection attempts',
    async () => {
      if (!redisUrl) {
        const { log, lines } = capturingLog();
        const down = await downRedis();
        const store = new RedisCounterStore(down.url, log, { maxReconnectDelayMs: 50 });
        await store.start();
        await waitFor(() => down.attempts() >= 5, 5000, 'five connection attempts');
        const now = Date.now();
        assert.deepEqual(
          await store.hit({ keyCounter: 'k', ipCounter: 'ip', ipLimit: 5, windowEndsAt: now + 1000, now }),
          { key: 1, ip: 1 },
        );
        await store.close();
        await down.close();
        assert.equal(lines.filter((line) => UNAVAILABLE.test(line.msg)).length, 1);
        return;
      }

      const proxy = new TcpProxy(redisUrl);
      await proxy.start();
      const t = await startApp(proxy.url, { publicRead: 10 });
      const inspect = new Redis(redisUrl);
      try {
        const shop = await createTestStore(t);
        const counter = async () => {
          const [name, ...others] = await inspect.keys(
            `storefront:rl:{${shop.store.id}}:read:key:${shop.keyId}:[0-9]*`,
          );
          assert.deepEqual(others, []);
          return name === undefined ? null : await inspect.get(name);
        };
        assert.deepEqual(budget(await get(t, shop.publishableKey)), [200, 10, 9]);
        assert.equal(await counter(), '1');

        await proxy.stop();
        await waitFor(() => warnings(t.logs, UNAVAILABLE).length > 0, 5000, 'the outage to be noticed');
        assert.deepEqual(budget(await get(t, shop.publishableKey)), [200, 10, 9], 'counted in memory');
        assert.deepEqual(budget(await get(t, shop.publishableKey)), [200, 10, 8]);
        assert.equal(await counter(), '1', 'Redis was not reached');
        assert.equal(warnings(t.logs, UNAVAILABLE).length, 1);

        await proxy.start();
        await waitFor(() => t.logs.some((line) => RECOVERED.test(String(line.msg))), 5000, 'recovery');
        assert.deepEqual(budget(await get(t, shop.publishableKey)), [200, 10, 8], 'shared counter again');
        assert.equal(await counter(), '2');
        assert.equal(warnings(t.logs, UNAVAILABLE).length, 1);

        // A Redis that stops answering costs one command timeout, then calls skip it for a while.
        proxy.hold();
        let started = performance.now();
        assert.equal((await get(t, shop.publishableKey)).statusCode, 200);
        const stalled = performance.now() - started;
        assert.ok(stalled >= 200 && stalled < 1000, `the stalled request took ${stalled.toFixed(0)} ms`);
        started = performance.now();
        for (let i = 0; i < 3; i++) assert.equal((await get(t, shop.publishableKey)).statusCode, 200);
        const skipped = performance.now() - started;
        assert.ok(skipped < 200, `3 requests during the pause took ${skipped.toFixed(0)} ms`);
        assert.equal(
          warnings(t.logs, UNAVAILABLE).length,
          1,
          'a second outage within 10 s of the first warning is counted, not logged',
        );
        proxy.release();
        t.clock.advance(1100); // the pause is on the limiter's clock
        const before = Number(await counter());
        assert.equal((await get(t, shop.publishableKey)).statusCode, 200);
        assert.equal(Number(await counter()), before + 1, 'Redis is used again after the pause');
        assert.equal(t.logs.filter((line) => RECOVERED.test(String(line.msg))).length, 2);
      } finally {
        inspect.disconnect();
        await t.close();
        await proxy.stop();
      }
    },
  );
});
