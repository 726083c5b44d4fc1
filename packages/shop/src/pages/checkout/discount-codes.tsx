/**
 * The review step's discount codes (decision `cart-promotions`): the field adds one code at a time
 * (up to five), and each code the cart holds is listed with what it takes off, or why it takes
 * nothing off now in a shopper's words, and its Remove button. What an add or a remove did is read
 * out by screen readers (a status line the list shows already).
 */
import type { Cart } from '@storefront/client';
import { codeWords, isCodeNotice } from '../../promotions.ts';
import { Money } from '../../ui.tsx';
import { CodeForm } from './code-form.tsx';

function HeldCode(props: { cart: Cart; code: string; sending: boolean; onRemove: (code: string) => void }) {
  const { cart, code } = props;
  const applied = cart.promotions.find((promotion) => promotion.code === code);
  const notice = cart.notices.find((entry) => isCodeNotice(entry) && entry.discountCode === code);
  return (
    <li class={applied ? 'held-code' : 'held-code held-code-idle'}>
      <span class="held-code-name">{code}</span>
      <span class="held-code-effect">
        {applied ? (
          <>
            −<Money amount={applied.amount.amount} currency={applied.amount.currency} />
          </>
        ) : (
          'Not applied'
        )}
      </span>
      <button type="button" class="button-link" disabled={props.sending} onClick={() => props.onRemove(code)}>
        Remove <span class="visually-hidden">code {code}</span>
      </button>
      {applied ? null : (
        <p class="held-code-why">{notice ? codeWords(notice) : 'It takes nothing off this order now.'}</p>
      )}
    </li>
  );
}

export function DiscountCodes(props: {
  cart: Cart;
  value: string;
  problem: string | undefined;
  status: string;
  sending: boolean;
  onInput: (value: string) => void;
  onAdd: () => Promise<void>;
  onRemove: (code: string) => Promise<void>;
}) {
  const { cart } = props;
  return (
    <CodeForm
      {...props}
      id="checkout-discount"
      label="Discount code (optional)"
      class="discount-form"
      heldLabel="Your discount codes"
      held={cart.discountCodes.map((code) => (
        <HeldCode
          key={code}
          cart={cart}
          code={code}
          sending={props.sending}
          onRemove={(held) => void props.onRemove(held)}
        />
      ))}
    />
  );
}
