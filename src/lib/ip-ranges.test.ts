import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import Fastify from 'fastify';
import { publicCoverage } from './ip-ranges.ts';

const ALL = publicCoverage(['0.0.0.0/0', '::/0']);

/** Splits `bits`-prefix ranges of 0.0.0.0/0 into a random set of CIDR blocks that cover it exactly. */
function splitIpv4(choices: readonly boolean[]): string[] {
  const blocks: string[] = [];
  let next = 0;
  const split = (network: number, bits: number): void => {
    if (bits >= 8 || !(choices[next++ % choices.length] ?? false)) {
      blocks.push(
        `${[network >>> 24, (network >>> 16) & 255, (network >>> 8) & 255, network & 255].join('.')}/${bits}`,
      );
      return;
    }
    split(network, bits + 1);
    split((network | (1 << (31 - bits))) >>> 0, bits + 1);
  };
  split(0, 0);
  return blocks;
}

describe('publicCoverage', () => {
  test('counts the public part of IPv4 and IPv6 apart; private and special ranges count nothing', () => {
    // 2^32 less the RFC 6890 blocks, multicast and the reserved 240/4.
    assert.equal(ALL.ipv4, 3_702_258_432n);
    assert.equal(ALL.ipv6, (1n << 125n) - (1n << 96n));
    assert.deepEqual(publicCoverage(['10.0.0.0/8', '192.168.1.1', 'fc00::/7', 'fe80::/10', 'loopback']), {
      ipv4: 0n,
      ipv6: 0n,
    });
    assert.deepEqual(publicCoverage(['8.8.8.8', '8.8.8.8/32', '2606:4700::/32']), {
      ipv4: 1n,
      ipv6: 1n << 96n,
    });
    // Host bits are ignored, as Fastify's matching does.
    assert.deepEqual(publicCoverage(['1.2.3.4/24']), publicCoverage(['1.2.3.0/24']));
  });

  test('an IPv4-mapped range of /96 or longer holds IPv4 clients; other IPv6 ranges hold only IPv6 ones', () => {
    assert.deepEqual(publicCoverage(['::/1']), { ipv4: 0n, ipv6: ALL.ipv6 });
    assert.deepEqual(publicCoverage(['::ffff:0:0/96']), { ipv4: ALL.ipv4, ipv6: 0n });
    assert.deepEqual(publicCoverage(['::ffff:1.0.0.0/104']), publicCoverage(['1.0.0.0/8']));
    assert.deepEqual(publicCoverage(['::ffff:10.0.0.0/8']), { ipv4: 0n, ipv6: 0n });
  });

  // The count is of the clients Fastify believes: adding one public client's address to the list
  // adds one address exactly when Fastify's trustProxy does not trust that client already.
  test('counts the clients that Fastify trusts, no more and no fewer', async () => {
    const bits = (max: number) => fc.option(fc.integer({ min: 1, max }), { nil: undefined });
    const cut = ([ip, prefix]: [string, number | undefined]) =>
      prefix === undefined ? ip : `${ip}/${prefix}`;
    const entry = fc.oneof(
      fc.tuple(fc.ipV4(), bits(32)).map(cut),
      fc.tuple(fc.ipV6(), bits(128)).map(cut),
      fc.tuple(fc.ipV4(), fc.integer({ min: 80, max: 128 })).map(([ip, prefix]) => `::ffff:${ip}/${prefix}`),
      fc.constantFrom('::/1', '2000::/3', '0.0.0.0/1', '::ffff:0:0/96', '2a00::/12', '64.0.0.0/3'),
    );
    const client = fc.oneof(
      fc.ipV4(),
      fc.ipV6().filter((ip) => /^[23]/.test(ip)),
      fc.ipV4().map((ip) => `::ffff:${ip}`),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 4 }), client, async (entries, address) => {
        const app = Fastify({ trustProxy: entries });
        app.get('/', (request) => ({ ip: request.ip }));
        const response = await app.inject({
          url: '/',
          remoteAddress: address,
          headers: { 'x-forwarded-for': '192.0.2.77' },
        });
        await app.close();
        const trusted = response.json<{ ip: string }>().ip === '192.0.2.77';
        const before = publicCoverage(entries);
        const after = publicCoverage([...entries, address]);
        const added = after.ipv4 + after.ipv6 - before.ipv4 - before.ipv6;
        const isPublic = (({ ipv4, ipv6 }) => ipv4 + ipv6 === 1n)(publicCoverage([address]));
        assert.equal(added, isPublic && !trusted ? 1n : 0n, `${entries.join(',')} ← ${address}`);
      }),
      { numRuns: 400 },
    );
  });

  test('overlaps count once, and the whole split into any blocks counts as the whole', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 64 }), fc.boolean(), (choices, twice) => {
        const blocks = splitIpv4(choices);
        const listed = twice ? [...blocks, ...blocks.slice(0, 3)] : blocks;
        assert.equal(publicCoverage(listed).ipv4, ALL.ipv4, blocks.join(','));
      }),
      { numRuns: 300 },
    );
  });
});
