/**
 * Runs the examples of README.md and docs/*.md against a real server seeded with the demo store,
 * as a reader would paste them (docs/sdk.md, one program, is sdk-doc.test.ts):
 *
 * - every ```ts block is type-checked against the built packages and run;
 * - each document's walkthrough runs in order as one session: the `curl` commands of its ```sh
 *   blocks (through bash, after the block's `export` lines) and the requests of its ```http blocks
 *   (through fetch; the credentials a block leaves out are the demo store's: a staff token for
 *   /admin/, the publishable key for /storefront/). A placeholder (`<cartId>`, `ct_…`) is filled
 *   from an earlier answer as PLACEHOLDERS declares; `pk_…`, `st_…` and `http://127.0.0.1:3000`
 *   are the demo store's key and token and this server. Each must answer 2xx, the status the block
 *   shows after `→`, or exactly the refusal EXPECTED_REFUSALS lists. An http block that shows an
 *   answer is marked ```http response;
 * - a ```js block is a fragment (marked ```js fragment) or a program another test runs (JS_RUN_BY).
 *
 * Shell lines that install, start or deploy (`npm`, `docker`, `git`, `node bin/storefront.js`,
 * `stripe`) are not run here: CI and scripts/production-install.sh run those, and
 * doc-cli.test.ts checks every `storefront` command the docs name against the CLI's help.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { DemoCredentials } from '../../../src/seed/demo.ts';
import { addressesOf, readMailDir, waitForMail } from '../../../src/test/harness.ts';
import {
  assertShown,
  blocksOf,
  ROOT,
  Session,
  walkthroughOf,
  type Source,
} from './doc-examples.test-support.ts';
import { run, typeErrors, WORK_DIR } from './doc-program.test-support.ts';
import { demoShop, startDemoApp, type DemoShop, type LiveApp } from './server.test-support.ts';

/** The documents whose examples run here (docs/sdk.md runs as one program in sdk-doc.test.ts). */
const DOCUMENTS = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md') && name !== 'sdk.md')
    .map((name) => `docs/${name}`),
];

/**
 * Each document's placeholders and where a reader takes their values from: an earlier answer of
 * the same walkthrough (`s.json('POST /carts', 'id')`: the newest request containing that text,
 * a dot path into its body), a mail, or what the test set up before (GIVEN). Filled in this order.
 */
const PLACEHOLDERS: Record<string, Record<string, Source>> = {
  'docs/checkout.md': {
    '<productId>': (s) => s.json('GET /storefront/v1/products?limit=1', 'items.0.id'),
    // "A variant with stock": the cart asks for 2 units of it.
    '<variantId>': (s) =>
      s.find('GET /storefront/v1/products/', 'variants', (variant) => Number(variant.available) >= 2),
    '"1-Q2x9…"': (s) => s.header('POST /storefront/v1/carts', 'etag'),
    '<cartId>': (s) => s.json('POST /storefront/v1/carts', 'id'),
    '<optionId>': (s) => s.json('/shipping-options', 'items.0.id'),
    '<clientSecret>': (s) => s.json('POST /storefront/v1/checkout', 'payment.clientSecret'),
    '<ref>': (s) => s.json('POST /storefront/v1/checkout', 'payment.ref'),
    '<orderId>': (s) => s.json('POST /storefront/v1/checkout', 'order.id'),
  },
  'docs/customers.md': {
    // The code of the mail the sign-in sent, as the reader reads it.
    '"code":"123456"': async (s) => `"code":"${await mailedCode('ada@example.com', s.given.mailsBefore!)}"`,
    'ct_…': (s) => s.json('/customers/verify', 'token'),
    '<customerId>': (s) => s.json('/customers/verify', 'customer.id'),
    '<groupId>': (s) => s.json('POST /admin/v1/customer-groups', 'id'),
  },
  'docs/gift-cards.md': {
    '<last4>': (s) => s.json('POST /admin/v1/gift-cards', 'last4'),
    '<giftCardId>': (s) => s.json('POST /admin/v1/gift-cards', 'id'),
    // The code of the card issued above, typed in lower case as a buyer may.
    '"k7qm-2xhp-9tnv-c4rw"': (s) =>
      JSON.stringify(String(s.json('POST /admin/v1/gift-cards', 'code')).toLowerCase()),
    '<cartId>': (s) => s.given.cartId!,
  },
  'docs/authentication.md': {
    '"code": "123456"': async (s) =>
      `"code": "${await mailedCode('owner@demo.storefront.test', s.given.mailsBefore!)}"`,
  },
  'docs/catalog.md': {
    '<frontMediaId>': (s) => s.given.frontMediaId!,
    '<backMediaId>': (s) => s.given.backMediaId!,
    '<productId>': (s) => s.json('POST /admin/v1/products', 'id', 0),
    '<anotherProductId>': (s) => s.json('POST /admin/v1/products', 'id', 1),
  },
  'docs/fulfillment.md': {
    // Shipping and returning take an order of their own; cancelling, one that has not shipped.
    '<orderId>': (s, step) => (step.text.includes('/cancel') ? s.given.unshippedOrderId! : s.given.orderId!),
    '<variantId>': (s) => s.given.variantId!,
  },
  'docs/markets.md': {
    '<variantId>': (s) => s.given.variantId!,
    '<marketId>': (s) => s.json('POST /admin/v1/markets', 'id'),
    '<cartId>': (s) => s.json('POST /storefront/v1/carts', 'id'),
  },
  'docs/promotions.md': {
    '<promotionId>': (s) => s.json('POST /admin/v1/promotions', 'id', 0),
    '<cartId>': (s) => s.given.cartId!,
  },
  'docs/shipping.md': {
    '"3-…"': (s) => s.given.cartEtag!,
    '<cartId>': (s) => s.given.cartId!,
    '<optionId>': (s) => s.json('/shipping-options', 'items.0.id'),
    '0c6f…': () => randomUUID(),
  },
};

/** What the test sets up before a document's walkthrough, as its prose says the reader has. */
const GIVEN: Record<string, (shop: DemoShop) => Promise<Record<string, string>>> = {
  // The mails the address had before the walkthrough's sign-in: the code is in the next one.
  'docs/authentication.md': async () => ({
    mailsBefore: String(await mailsTo('owner@demo.storefront.test')),
  }),
  'docs/customers.md': async () => ({ mailsBefore: String(await mailsTo('ada@example.com')) }),
  // "Images are uploaded once and used by id": two uploads, front and back.
  'docs/catalog.md': async (shop) => ({
    frontMediaId: await shop.uploadImage(),
    backMediaId: await shop.uploadImage(),
  }),
  // "A paid order": one of two units of a variant to ship and return, one to cancel.
  'docs/fulfillment.md': async (shop) => {
    const order = await shop.paidOrder(2);
    const unshipped = await shop.paidOrder(1);
    return { orderId: order.id, variantId: order.lines[0]!.variantId, unshippedOrderId: unshipped.id };
  },
  // "A cart" to add codes to.
  'docs/promotions.md': async (shop) => ({ cartId: (await shop.cart()).cart.id }),
  // "A cart" a gift card pays part of.
  'docs/gift-cards.md': async (shop) => ({ cartId: (await shop.cart()).cart.id }),
  // "A variant": the one of a cart's line.
  'docs/markets.md': async (shop) => ({ variantId: (await shop.cart()).cart.items[0]!.variantId }),
  // A cart with a line in it; its ETag is the one to send in If-Match.
  'docs/shipping.md': async (shop) => {
    const { cart, etag } = await shop.cart();
    return { cartId: cart.id, cartEtag: etag };
  },
};

/** Requests that answer other than 2xx on purpose, by document: a part of the request, the status. */
const EXPECTED_REFUSALS: Record<string, Record<string, number>> = {
  // None today: every example answers as its document says. (customers.md's and authentication.md's
  // `123456` was refused with 401 before the walkthrough took the code from the mail.)
};

/** The ```js blocks that are complete programs, and the test that runs each (by a line it starts with). */
const JS_RUN_BY: Record<string, string> = {
  '// A Storefront webhook receiver': 'src/webhooks/webhooks.receiver-example.test.ts',
};

let live: LiveApp;
let demo: DemoCredentials;
let shop: DemoShop;
/** Where the walkthroughs' curl commands run (a folder of this run's own). */
let workDir: string;

before(async () => {
  ({ live, demo } = await startDemoApp());
  shop = demoShop(live, demo);
  fs.mkdirSync(WORK_DIR, { recursive: true });
  workDir = fs.mkdtempSync(path.join(WORK_DIR, 'walkthrough-'));
});
after(async () => {
  fs.rmSync(workDir, { recursive: true, force: true });
  if (fs.existsSync(WORK_DIR) && fs.readdirSync(WORK_DIR).length === 0) fs.rmdirSync(WORK_DIR);
  await live.close();
});

/** The demo store's credentials and this server in place of the docs' placeholders. */
function common(): [string, string][] {
  return [
    ['http://127.0.0.1:3000', live.baseUrl],
    ['http://localhost:3000', live.baseUrl],
    ['pk_…', demo.publishableKey],
    ['st_…', demo.staffToken],
  ];
}

function filled(code: string): string {
  return common().reduce((text, [placeholder, value]) => text.replaceAll(placeholder, value), code);
}

async function mailsTo(to: string): Promise<number> {
  const { emailTransport } = live.t.config;
  assert.equal(emailTransport.kind, 'file');
  return (await readMailDir(emailTransport.dir)).filter((mail) => addressesOf(mail).includes(to)).length;
}

/** The 6-digit code of the mail to `to` that came after the `before` it had. */
async function mailedCode(to: string, before: string): Promise<string> {
  const mail = await waitForMail(live.t, to, Number(before) + 1);
  const code = /\b(\d{6})\b/.exec(mail.text ?? '')?.[1];
  assert.ok(code, `a code in the mail to ${to}`);
  return code;
}

const blocks = DOCUMENTS.flatMap(blocksOf);

describe('the TypeScript examples of README.md and docs/', () => {
  const typescript = blocks.filter((block) => block.language === 'ts');
  test('there are some', () => assert.ok(typescript.length >= 2, `${typescript.length} blocks`));
  for (const block of typescript) {
    test(`${block.document}:${block.line} type-checks and runs against the demo store`, async () => {
      const file = path.join(WORK_DIR, `example-${randomUUID().slice(0, 8)}.ts`);
      // `export {}`: each example is a module of its own, as in a reader's project.
      fs.writeFileSync(file, `${filled(block.code)}\nexport {};\n`);
      try {
        // @storefront/address is the front ends' source package (bundled, never built on its own):
        // its examples run; its types are checked by its own tsconfig in `npm run check`.
        if (!block.code.includes("from '@storefront/address'")) assert.deepEqual(typeErrors(file), []);
        const { code, stdout, stderr } = await run(file);
        assert.equal(code, 0, `${stderr}\n--- stdout ---\n${stdout}`);
      } finally {
        fs.rmSync(file, { force: true });
      }
    });
  }
});

describe('the walkthroughs of README.md and docs/ (curl commands and http requests, in order)', () => {
  const walkthroughs = DOCUMENTS.map((document) => ({
    document,
    steps: walkthroughOf(blocks.filter((block) => block.document === document)),
  })).filter(({ steps }) => steps.length > 0);
  const count = (kind: string) =>
    walkthroughs.flatMap(({ steps }) => steps).filter((step) => step.kind === kind).length;
  test('there are some', () =>
    assert.ok(count('curl') >= 16 && count('http') >= 20, `${count('curl')} curl, ${count('http')} http`));
  for (const { document, steps } of walkthroughs) {
    describe(document, () => {
      let session: Session;
      before(async () => {
        const given = {
          staffAuthorization: `Bearer ${demo.staffToken}`,
          publishableKey: demo.publishableKey,
        };
        Object.assign(given, await GIVEN[document]?.(shop));
        session = new Session({
          baseUrl: live.baseUrl,
          common: common(),
          placeholders: PLACEHOLDERS[document] ?? {},
          workDir,
          given,
        });
        session.provideTools();
      });
      for (const step of steps) {
        test(`${document}:${step.line} ${step.text.split('\n')[0]!.slice(0, 90)}`, async () => {
          const { request, status, body } = await session.run(step);
          const refusal = Object.entries(EXPECTED_REFUSALS[document] ?? {}).find(([part]) =>
            request.includes(part),
          );
          const expected = refusal?.[1] ?? step.shown?.status;
          const answer = `${request} → ${status} ${JSON.stringify(body).slice(0, 600)}`;
          if (expected === undefined) assert.ok(status >= 200 && status < 300, answer);
          else assert.equal(status, expected, answer);
          if (step.shown?.body) assertShown(step.shown.body, body, answer);
        });
      }
    });
  }
});

describe('the JavaScript examples of README.md and docs/', () => {
  for (const block of blocks.filter((block) => block.language === 'js')) {
    test(`${block.document}:${block.line} is a fragment or a program another test runs`, () => {
      if (block.marks.includes('fragment')) return;
      const runner = Object.entries(JS_RUN_BY).find(([start]) => block.code.startsWith(start))?.[1];
      assert.ok(runner, 'mark it ```js fragment, or run it and name the test in JS_RUN_BY');
      assert.ok(
        fs.readFileSync(path.join(ROOT, runner), 'utf8').includes(block.document),
        `${runner} reads ${block.document}`,
      );
    });
  }
});
