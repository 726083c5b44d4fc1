import assert from 'node:assert/strict';
import { test } from 'node:test';
import { duration, progressReporter } from './progress.ts';

function recorder(tty: boolean) {
  let clock = 0;
  const out: string[] = [];
  const report = progressReporter({
    write: (text) => out.push(text),
    tty,
    unit: 'products',
    now: () => clock,
  });
  return { out, report, advance: (ms: number) => (clock += ms) };
}

test('off a terminal: a line at each tenth, with count, rate and time left, and the total time at the end', () => {
  const { out, report, advance } = recorder(false);
  report(0, 1000);
  for (let done = 50; done <= 1000; done += 50) {
    advance(500);
    report(done, 1000);
  }
  assert.equal(out.length, 10, out.join(''));
  assert.equal(out[0], '   10 %  100/1,000 products  100/s  ETA 9s\n');
  assert.equal(out[4], '   50 %  500/1,000 products  100/s  ETA 5s\n');
  assert.equal(out.at(-1), '  100 %  1,000/1,000 products  100/s  in 10s\n');
  assert.ok(out.every((line) => !line.includes('\r')));
});

test('off a terminal: one big step prints one line', () => {
  const { out, report, advance } = recorder(false);
  report(0, 1200);
  advance(2000);
  report(1200, 1200);
  assert.deepEqual(out, ['  100 %  1,200/1,200 products  600/s  in 2s\n']);
});

test('on a terminal: a bar redrawn in place at most every 100 ms, ending with a newline', () => {
  const { out, report, advance } = recorder(true);
  report(0, 200);
  advance(50);
  report(10, 200); // too soon after the first draw
  advance(50);
  report(50, 200);
  advance(100);
  report(200, 200);
  assert.equal(out.length, 3, JSON.stringify(out));
  assert.ok(out.every((draw) => draw.startsWith('\r  [')));
  assert.match(out[0]!, /\[\.{30}\] 0\/200 products {2}0\/s {2}ETA …/);
  assert.match(out[1]!, /\[#{7}\.{23}\] 50\/200 products {2}500\/s {2}ETA 0s/);
  assert.match(out[2]!, /\[#{30}\] 200\/200 products {2}1,000\/s {2}in 0s/);
  assert.ok(out[2]!.endsWith('\x1b[K\n'), 'clears the rest of the line, then ends it');
});

test('durations', () => {
  assert.equal(duration(0.4), '0s');
  assert.equal(duration(59), '59s');
  assert.equal(duration(185), '3m05s');
  assert.equal(duration(3720), '1h02m');
});
