import { escapeHtml } from '../lib/html.ts';
import { formatMoney } from '../lib/money.ts';

/**
 * The mail that brings a buyer the codes of the gift cards their order bought (decision
 * `gift-card-products`), in text and HTML. It carries the codes, so it is queued sealed and erased
 * once sent; nothing else ever holds them.
 */

export interface MailedCard {
  /** `XXXX-XXXX-XXXX-XXXX`. */
  code: string;
  amount: number;
  currency: string;
  expiresAt: Date | null;
}

export interface GiftCardMail {
  subject: string;
  text: string;
  html: string;
}

/** A date as a buyer reads it, in UTC: `31 December 2026`. */
const day = (at: Date): string =>
  at.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

const expiry = (card: MailedCard): string =>
  card.expiresAt === null ? 'It does not expire.' : `It expires on ${day(card.expiresAt)}.`;

const howToUse = (storeName: string): string[] => [
  `To use it, enter the code at checkout in ${storeName}, where it asks for a gift card. It pays up to its balance,`,
  'and what an order leaves of it stays on the card for the next one.',
  'Keep the code safe, like cash: anyone who has it can spend the card.',
];

/** The mail to the buyer of `cards` (one or more) bought with order #`orderNumber` from `storeName`. */
export function giftCardMail(
  storeName: string,
  orderNumber: number,
  cards: readonly MailedCard[],
): GiftCardMail {
  const one = cards.length === 1;
  const subject = one
    ? `Your gift card from ${storeName}`
    : `Your ${cards.length} gift cards from ${storeName}`;
  const intro = `Thank you for your order #${orderNumber} from ${storeName}. ${
    one ? 'Here is your gift card.' : `Here are your ${cards.length} gift cards.`
  }`;
  const text = [
    intro,
    '',
    ...cards.flatMap((card, i) => [
      ...(one ? [] : [`Gift card ${i + 1} of ${cards.length}`]),
      `  Amount: ${formatMoney({ amount: card.amount, currency: card.currency })}`,
      `  Code:   ${card.code}`,
      `  ${expiry(card)}`,
      '',
    ]),
    ...howToUse(storeName),
    '',
    'Reply to this email if you have any questions.',
  ].join('\n');
  const html = [
    '<!doctype html>',
    '<html><head><meta charset="utf-8"><title>',
    escapeHtml(subject),
    '</title></head>',
    '<body style="font-family: sans-serif; line-height: 1.5; color: #222;">',
    `<p>${escapeHtml(intro)}</p>`,
    ...cards.map(
      (card, i) =>
        '<table role="presentation" style="border: 1px solid #ccc; border-radius: 6px; padding: 12px; margin: 12px 0;">' +
        (one
          ? ''
          : `<tr><th colspan="2" style="text-align: left;">Gift card ${i + 1} of ${cards.length}</th></tr>`) +
        `<tr><td>Amount</td><td><strong>${escapeHtml(formatMoney({ amount: card.amount, currency: card.currency }))}</strong></td></tr>` +
        `<tr><td>Code</td><td><code style="font-size: 1.25em; letter-spacing: 0.1em;">${escapeHtml(card.code)}</code></td></tr>` +
        `<tr><td colspan="2">${escapeHtml(expiry(card))}</td></tr>` +
        '</table>',
    ),
    `<p>${escapeHtml(howToUse(storeName).join(' '))}</p>`,
    '<p>Reply to this email if you have any questions.</p>',
    '</body></html>',
  ].join('\n');
  return { subject, text, html };
}
