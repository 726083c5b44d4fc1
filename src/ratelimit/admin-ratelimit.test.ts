import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openStaffSession } from '../staff/staff.service.ts';
import {
  clientAddresses,
  createTestStore,
  startTestApp,
  testConfig,
  type TestApp,
  type TestStore,
} from '../test/harness.ts';
import { toWindowStart } from './ratelimit.test-support.ts';

// Admin API budgets (issue 31): per client IP before authentication, per staff session after.
// Each test uses addresses of its own, so counters shared through Redis by other test files never
// touch its budgets.
let t: TestApp;
let store: TestStore;
const IP_BUDGET = 12;
before(async () => {
  t = await startTestApp({
    config: {
      rateLimits: { ...testConfig().rateLimits, adminIp: IP_BUDGET, adminRead: 5, adminWrite: 3 },
    },
  });
  store = await createTestStore(t);
});
after(() => t.close());

const address = clientAddresses();

function call(method: 'GET' | 'PUT', remoteAddress: string, token: string | null = store.staffToken) {
  return t.app.inject({
    method,
    url: '/admin/v1/settings',
    remoteAddress,
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
    ...(method === 'PUT' ? { payload: {} } : {}),
  });
}

describe('Admin API rate limits', () => {
  test("a staff session's reads and writes have budgets of their own, with RateLimit headers", async () => {
    const ip = address();
    toWindowStart(t);
    // A fresh session of its own, so the budgets start at zero whatever ran before.
    const session = (await openStaffSession(t.deps, store.store.id, store.ownerEmail)).token;
    for (let i = 1; i <= 5; i += 1) {
      const read = await call('GET', ip, session);
      assert.equal(read.statusCode, 200, read.body);
      assert.equal(read.headers['ratelimit-limit'], '5');
      assert.equal(read.headers['ratelimit-remaining'], String(5 - i));
    }
    const over = await call('GET', ip, session);
    assert.equal(over.statusCode, 429);
    assert.match(String(over.headers['content-type']), /application\/problem\+json/);
    assert.equal(over.json<{ title: string }>().title, 'rate_limited');
    assert.match(
      over.json<{ detail: string }>().detail,
      /staff session's read budget of 5 requests per window/,
    );
    assert.ok(Number(over.headers['retry-after']) > 0);
    // Writes are counted apart: the session may still write three times.
    for (let i = 0; i < 3; i += 1) assert.notEqual((await call('PUT', ip, session)).statusCode, 429);
    assert.equal((await call('PUT', ip, session)).statusCode, 429);
    // Another session of the same member is not held back by the first one's budget.
    const other = (await openStaffSession(t.deps, store.store.id, store.ownerEmail)).token;
    assert.equal((await call('GET', ip, other)).statusCode, 200);
    // The window passes: the budgets are back.
    t.clock.advance(60_000);
    assert.equal((await call('GET', ip, session)).statusCode, 200);
  });

  test('one address has a budget for every Admin API request, before its token is looked up', async () => {
    const ip = address();
    toWindowStart(t);
    for (let i = 0; i < IP_BUDGET; i += 1) {
      const answer = await call('GET', ip, 'st_not_a_real_token_000000000000000000000000');
      assert.equal(answer.statusCode, 401, answer.body);
    }
    const over = await call('GET', ip, store.staffToken);
    assert.equal(over.statusCode, 429, 'a valid token from a flooding address waits too');
    assert.match(over.json<{ detail: string }>().detail, /Too many Admin API requests from this address/);
    // Another address is unaffected.
    assert.notEqual((await call('GET', address(), null)).statusCode, 429);
  });
});
