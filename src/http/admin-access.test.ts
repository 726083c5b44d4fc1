/**
 * Roles on the Admin API (issue #26, item 11): one table, ADMIN_ACCESS, gives every admin
 * operation its lowest role; the served OpenAPI document and docs/authentication.md show the same,
 * and every operation answers 403 `forbidden` to exactly the roles below its own.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { addStaffMember, openStaffSession } from '../staff/staff.service.ts';
import { createTestStore, startTestApp, type TestApp, type TestStore } from '../test/harness.ts';
import { ADMIN_ACCESS, adminAccessOf, roleMayCall, type AdminAccess } from './admin-access.ts';
import type { StaffRole } from './principals.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const ADMIN = '/admin/v1';
const ROLES: readonly StaffRole[] = ['owner', 'admin', 'staff'];

interface Operation {
  operationId: string;
  method: string;
  path: string;
  hasBody: boolean;
  access: AdminAccess;
}

/** The admin operations of the OpenAPI document this app serves, in its order. */
async function servedAdminOperations(): Promise<Operation[]> {
  const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(response.statusCode, 200);
  const document = response.json<{
    paths: Record<
      string,
      Record<
        string,
        { operationId: string; requestBody?: unknown; security?: unknown[]; 'x-staff-role'?: string }
      >
    >;
  }>();
  const operations: Operation[] = [];
  for (const [url, methods] of Object.entries(document.paths)) {
    if (!url.startsWith(`${ADMIN}/`)) continue;
    for (const [method, operation] of Object.entries(methods)) {
      const access = operation['x-staff-role'] ?? 'public';
      assert.ok(
        access === 'public' ? operation.security?.length === 0 : operation.security?.length === 1,
        `${operation.operationId}: a staff session is required exactly when it is not public`,
      );
      operations.push({
        operationId: operation.operationId,
        method: method.toUpperCase(),
        path: url.slice(ADMIN.length),
        hasBody: operation.requestBody !== undefined,
        access: access as AdminAccess,
      });
    }
  }
  return operations;
}

/** The operation table of docs/authentication.md: operationId → [request, role]. */
async function documentedTable(): Promise<Map<string, [string, string]>> {
  const text = await readFile(path.join(import.meta.dirname, '../../docs/authentication.md'), 'utf8');
  const rows = new Map<string, [string, string]>();
  for (const line of text.split('\n')) {
    const cells = /^\|\s*`(admin\w+)`\s*\|\s*`([^`]+)`\s*\|\s*(\w+)\s*\|$/.exec(line);
    if (cells) rows.set(cells[1]!, [cells[2]!, cells[3]!]);
  }
  return rows;
}

describe('the access table (ADMIN_ACCESS)', () => {
  test('names every admin operation the app serves, and nothing else; the document shows its roles', async () => {
    const served = await servedAdminOperations();
    assert.deepEqual(
      served.map((operation) => operation.operationId).sort(),
      Object.keys(ADMIN_ACCESS).sort(),
    );
    for (const operation of served)
      assert.equal(operation.access, ADMIN_ACCESS[operation.operationId as keyof typeof ADMIN_ACCESS]);
  });

  test('docs/authentication.md shows the same table', async () => {
    const served = await servedAdminOperations();
    const expected = served.map(
      (operation) =>
        `| \`${operation.operationId}\` | \`${operation.method} ${operation.path}\` | ${operation.access} |`,
    );
    const documented = await documentedTable();
    assert.deepEqual(
      documented,
      new Map(
        served.map((operation) => [
          operation.operationId,
          [`${operation.method} ${operation.path}`, operation.access],
        ]),
      ),
      `The operation table in docs/authentication.md should read (then run prettier):\n${expected.join('\n')}`,
    );
  });

  test('an admin route missing from the table cannot be registered', () => {
    assert.throws(
      () =>
        adminAccessOf({
          method: 'GET',
          url: '/admin/v1/secrets',
          schema: { operationId: 'adminListSecrets' },
        }),
      /has no role: add it to ADMIN_ACCESS/,
    );
    assert.throws(() => adminAccessOf({ method: 'GET', url: '/admin/v1/secrets' }), /has no role/);
    assert.throws(
      () => adminAccessOf({ method: 'GET', url: '/admin/v1/x', schema: { operationId: 'toString' } }),
      /has no role/,
      'only the table’s own entries count',
    );
  });

  test('roles are ranked owner > admin > staff', () => {
    assert.deepEqual(
      ROLES.map((role) => ROLES.map((needed) => roleMayCall(role, needed))),
      [
        [true, true, true],
        [false, true, true],
        [false, false, true],
      ],
    );
    for (const role of ROLES) assert.equal(roleMayCall(role, 'public'), true);
  });
});

describe('every admin operation with every role', () => {
  let shop: TestStore;
  before(async () => {
    shop = await createTestStore(t);
    for (const role of ['admin', 'staff'] as const)
      await addStaffMember(t.deps, shop.store.id, { email: `${role}@roles.example`, role });
  });

  const emailOf = (role: StaffRole) => (role === 'owner' ? shop.ownerEmail : `${role}@roles.example`);
  /** A fresh session each time: the sign-out operation ends the one it is called with. */
  const tokenOf = async (role: StaffRole) =>
    (await openStaffSession(t.deps, shop.store.id, emailOf(role))).token;

  /** Path parameters that name nothing; bodies that are empty: only the role decides a 403. */
  const urlOf = (operation: Operation) =>
    ADMIN +
    operation.path.replace(/\{(\w+)\}/g, (_, name: string) =>
      name === 'country' ? 'ZZ' : name === 'id' ? '00000000-0000-4000-8000-000000000000' : 'no-such-thing',
    );

  test('403 forbidden exactly for the roles below the operation’s, never a 500', async () => {
    const operations = await servedAdminOperations();
    assert.ok(operations.length >= Object.keys(ADMIN_ACCESS).length);
    const wrong: string[] = [];
    for (const operation of operations) {
      for (const role of ROLES) {
        const response = await t.app.inject({
          method: operation.method as 'GET',
          url: urlOf(operation),
          headers: { authorization: `Bearer ${await tokenOf(role)}` },
          ...(operation.hasBody ? { payload: {} } : {}),
        });
        const forbidden = !roleMayCall(role, operation.access);
        const title = response.statusCode >= 400 ? response.json<{ title: string }>().title : null;
        const ok = forbidden
          ? response.statusCode === 403 && title === 'forbidden'
          : response.statusCode !== 403 && response.statusCode < 500;
        if (!ok) wrong.push(`${operation.operationId} as ${role}: ${response.statusCode} ${title ?? ''}`);
      }
    }
    assert.deepEqual(wrong, [], 'answers that do not follow the table');
  });
});
