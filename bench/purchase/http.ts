/** HTTP for the purchase benchmark: connection pools to a server, requests and their answers. */
import { Pool } from 'undici';
import { isRecord, onCleanup } from '../lib/processes.ts';

const pools = new Set<Pool>();
onCleanup(async () => {
  await Promise.all([...pools].map((pool) => pool.destroy().catch(() => undefined)));
  pools.clear();
});

export function newPool(url: string, connections: number): Pool {
  const pool = new Pool(url, {
    connections,
    pipelining: 1,
    headersTimeout: 60_000,
    bodyTimeout: 60_000,
    keepAliveTimeout: 60_000,
  });
  pools.add(pool);
  return pool;
}

export async function closePool(pool: Pool): Promise<void> {
  pools.delete(pool);
  await pool.close().catch(() => undefined);
}

export interface Answer {
  /** HTTP status, or 0 for a connection error or timeout. */
  status: number;
  body: unknown;
  ms: number;
}

export async function call(
  pool: Pool,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH',
  route: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Answer> {
  const started = performance.now();
  try {
    const response = await pool.request({
      path: route,
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.body.text();
    let parsed: unknown = null;
    if (text !== '') {
      try {
        parsed = JSON.parse(text) as unknown;
      } catch {
        parsed = text;
      }
    }
    return { status: response.statusCode, body: parsed, ms: performance.now() - started };
  } catch (error) {
    return {
      status: 0,
      body: error instanceof Error ? error.message : String(error),
      ms: performance.now() - started,
    };
  }
}

export function field(value: unknown, ...names: string[]): unknown {
  let current = value;
  for (const name of names) current = isRecord(current) ? current[name] : undefined;
  return current;
}

export function stringAt(value: unknown, ...names: string[]): string {
  const found = field(value, ...names);
  if (typeof found !== 'string') throw new Error(`no ${names.join('.')} in ${JSON.stringify(value)}`);
  return found;
}

export async function expectAnswer(answer: Promise<Answer>, status: number, what: string): Promise<unknown> {
  const got = await answer;
  if (got.status !== status) {
    throw new Error(`${what}: expected ${status}, got ${got.status}: ${JSON.stringify(got.body)}`);
  }
  return got.body;
}
