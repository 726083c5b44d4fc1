import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DatabaseDeadlineError,
  isDatabaseUnavailable,
  isOutcomeUnknown,
  recentResourceFailure,
  reportIfOutage,
  RESOURCE_FAILURE_WINDOW_MS,
} from './errors.ts';

const sqlState = (code: string) => Object.assign(new Error(`SQLSTATE ${code}`), { code, severity: 'ERROR' });

describe('database errors', () => {
  test('the database being unable to do the work now is an outage; a wrong statement is not', () => {
    for (const code of [
      '08006', // connection failure
      '53100', // disk_full
      '53200', // out_of_memory
      '53300', // too_many_connections
      '58030', // io_error
      '57P01', // admin_shutdown
      '57P04', // database_dropped
      '57014', // query_canceled: the statement bound
      '3D000', // the database does not exist
      '28P01', // a new connection refused
    ])
      assert.equal(isDatabaseUnavailable(sqlState(code)), true, code);
    for (const code of ['23505', '40001', '40P01', '42P01', '22P02', 'XX000', '0A000'])
      assert.equal(isDatabaseUnavailable(sqlState(code)), false, code);
    assert.equal(isDatabaseUnavailable(new DatabaseDeadlineError(17_000)), true);
    assert.equal(isDatabaseUnavailable(Object.assign(new Error('read'), { code: 'ECONNRESET' })), true);
    assert.equal(isDatabaseUnavailable(new Error('Connection terminated unexpectedly')), true);
    assert.equal(isDatabaseUnavailable(new Error('something else')), false);
  });

  test("a lost connection leaves a transaction's outcome unknown; an error the database raised does not", () => {
    for (const code of ['08006', '08003', '57P01', '57P02'])
      assert.equal(isOutcomeUnknown(sqlState(code)), true, code);
    for (const code of ['53100', '57014', '3D000', '23505', '40001', '40P01', '42P01'])
      assert.equal(isOutcomeUnknown(sqlState(code)), false, code);
    assert.equal(isOutcomeUnknown(new Error('Connection terminated unexpectedly')), true);
    assert.equal(isOutcomeUnknown(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })), true);
    assert.equal(isOutcomeUnknown(new DatabaseDeadlineError(17_000)), true);
    assert.equal(isOutcomeUnknown(new Error('a bug')), false);
    assert.equal(isOutcomeUnknown(null), false);
  });

  test('a failure for lack of resources is remembered for readiness for a while; other outages are not', () => {
    const warnings: object[] = [];
    const debugs: object[] = [];
    const log = {
      warn: (line: object) => void warnings.push(line),
      debug: (line: object) => void debugs.push(line),
    };
    const before = Date.now();
    assert.equal(reportIfOutage(log, sqlState('57P01')), true);
    assert.equal(recentResourceFailure(before), null, 'a shutdown is seen by asking the database');
    assert.equal(reportIfOutage(log, sqlState('53100')), true);
    assert.equal(recentResourceFailure(Date.now()), '53100');
    assert.equal(recentResourceFailure(Date.now() + RESOURCE_FAILURE_WINDOW_MS + 1), null);
    assert.equal(reportIfOutage(log, sqlState('23505')), false, 'not an outage: left to the caller');
    assert.ok(warnings.length <= 1, 'once per interval');
    assert.equal(warnings.length + debugs.length, 2, 'the others at debug level');
  });
});
