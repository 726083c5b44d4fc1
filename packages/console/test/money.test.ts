/** The console's money and rate parsing and formatting: exact, through strings, never floats. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  bpsToPercentText,
  decimalToMinor,
  formatMoney,
  minorToDecimal,
  percentTextToBps,
} from '../src/ui/money.ts';

const ok = (input: string, exponent = 2) => {
  const parsed = decimalToMinor(input, exponent);
  assert.ok(parsed.ok, `${input}: ${parsed.ok ? '' : parsed.message}`);
  return parsed.amount;
};
const refused = (input: string, exponent = 2) => {
  const parsed = decimalToMinor(input, exponent);
  assert.ok(!parsed.ok, `${input} should be refused`);
  return parsed.message;
};

describe('decimalToMinor', () => {
  test('reads decimals exactly, whatever floats would do', () => {
    assert.equal(ok('19.99'), 1999);
    assert.equal(ok('0.29'), 29); // 0.29 * 100 is 28.999999999999996
    assert.equal(ok('19,99'), 1999);
    assert.equal(ok('1,234.50'), 123450);
    assert.equal(ok('1.234,5'), 123450);
    assert.equal(ok('1 234.5'), 123450);
    assert.equal(ok('1,234'), 123400);
    assert.equal(ok('20'), 2000);
    assert.equal(ok('500', 0), 500);
    assert.equal(ok('1.234', 3), 1234);
    assert.equal(ok('999999999999.99'), 99999999999999);
  });

  test('refuses what it cannot read for sure', () => {
    assert.match(refused('19.999'), /at most 2 decimals/);
    assert.match(refused('0.999'), /at most 2 decimals/);
    assert.match(refused('5.5', 0), /no decimals/);
    assert.match(refused('-1'), /negative/);
    assert.match(refused('1e3'), /number/);
    assert.match(refused('1.2.3'), /number/);
    assert.match(refused('12,34,56.00'), /number/);
    assert.match(refused('1.'), /number/);
    assert.match(refused(''), /Enter an amount/);
    assert.match(refused('9999999999999999'), /too large/);
    const negative = decimalToMinor('-0.05', 2, { allowNegative: true });
    assert.deepEqual(negative, { ok: true, amount: -5 });
  });

  test('says why it refused, for callers that word it their own way', () => {
    const problem = (input: string, exponent = 2) => {
      const parsed = decimalToMinor(input, exponent);
      return parsed.ok ? null : parsed.problem;
    };
    assert.equal(problem(''), 'empty');
    assert.equal(problem('-1'), 'negative');
    assert.equal(problem('1e3'), 'not_a_number');
    assert.equal(problem('1.2.3'), 'not_a_number');
    assert.equal(problem('19.999'), 'too_many_decimals');
    assert.equal(problem('9999999999999999'), 'too_large');
  });
});

describe('percentTextToBps', () => {
  const bps = (input: string) => {
    const parsed = percentTextToBps(input);
    assert.ok(parsed.ok, `${input}: ${parsed.ok ? '' : parsed.message}`);
    return parsed.bps;
  };
  const refusedRate = (input: string) => {
    const parsed = percentTextToBps(input);
    assert.ok(!parsed.ok, `${input} should be refused`);
    return parsed.message;
  };

  test('reads a percentage as exact basis points, with the money parser', () => {
    assert.equal(bps('20'), 2000);
    assert.equal(bps('8.25'), 825);
    assert.equal(bps('7,5'), 750);
    assert.equal(bps('0.29'), 29);
    assert.equal(bps(' 8.25 % '), 825);
    assert.equal(bps('0'), 0);
    assert.equal(bps('100'), 10_000);
    assert.equal(bps('100.00'), 10_000);
  });

  test('refuses more than 2 decimals, anything above 100 % and what is not a percentage', () => {
    assert.equal(refusedRate('8.255'), 'Use at most 2 decimals.');
    assert.equal(refusedRate('100.01'), 'A rate is at most 100 %.');
    assert.equal(refusedRate('250'), 'A rate is at most 100 %.');
    assert.equal(refusedRate('9999999999999999'), 'A rate is at most 100 %.');
    assert.equal(refusedRate(''), 'Enter a percentage, like 8.25.');
    assert.equal(refusedRate('%'), 'Enter a percentage, like 8.25.');
    assert.equal(refusedRate('-5'), 'Enter a percentage, like 8.25.');
    assert.equal(refusedRate('eight'), 'Enter a percentage, like 8.25.');
    assert.equal(refusedRate('8.2.5'), 'Enter a percentage, like 8.25.');
  });

  test('round-trips with bpsToPercentText', () => {
    for (const value of [0, 1, 10, 99, 750, 825, 2000, 10_000]) {
      assert.equal(bps(bpsToPercentText(value)), value);
    }
  });
});

describe('minorToDecimal and formatMoney', () => {
  test('write the exact decimal and format it in the locale', () => {
    assert.equal(minorToDecimal(1999, 2), '19.99');
    assert.equal(minorToDecimal(-5, 2), '-0.05');
    assert.equal(minorToDecimal(500, 0), '500');
    assert.equal(formatMoney(123450, 'USD', 'en-US'), '$1,234.50');
    assert.equal(formatMoney(123450, 'EUR', 'de-DE'), '1.234,50\u00a0€');
    assert.equal(formatMoney(500, 'JPY', 'en-US'), '¥500');
    assert.equal(formatMoney(900719925474099, 'USD', 'en-US'), '$9,007,199,254,740.99');
  });
});
