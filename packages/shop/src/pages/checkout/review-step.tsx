/**
 * Step 3: the choices made (each with its way back), the discount codes, the gift cards, the totals
 * and "Pay" what is left for the provider ("Place order" when the gift cards pay it all).
 */
import { deliveryEstimate } from '@storefront/blocks';
import type { Cart } from '@storefront/client';
import type { ComponentChildren } from 'preact';
import { PostalAddress } from '../../address-form.tsx';
import { FreeShippingProgress } from '../../cart-summary.tsx';
import { Totals } from '../../order-parts.tsx';
import { isGiftCardNotice, payWords } from '../../gift-cards.ts';
import { isCodeNotice } from '../../promotions.ts';
import { Notice } from '../../ui.tsx';
import { DiscountCodes } from './discount-codes.tsx';
import { GiftCardField } from './gift-card-field.tsx';
import type { Step } from './use-checkout-steps.ts';
import type { GiftCardFieldState } from './use-gift-card-field.ts';

function Choice(props: { term: string; what: string; onChange: () => void; children: ComponentChildren }) {
  return (
    <div>
      <dt>{props.term}</dt>
      <dd>{props.children}</dd>
      <dd>
        <button type="button" class="button-link" onClick={props.onChange}>
          Change <span class="visually-hidden">{props.what}</span>
        </button>
      </dd>
    </div>
  );
}

export function ReviewStep(props: {
  cart: Cart;
  email: string;
  phone: string;
  discountCode: string;
  discountProblem: string | undefined;
  codeStatus: string;
  giftCard: GiftCardFieldState;
  /** Nothing to ship (no address shown), and nothing gift cards may pay (a card never buys a card). */
  giftCardsOnly: boolean;
  sending: boolean;
  onGo: (step: Step) => void;
  onDiscountCode: (value: string) => void;
  onAddCode: () => Promise<void>;
  onRemoveCode: (code: string) => Promise<void>;
  onGiftCard: (value: string) => void;
  onAddGiftCard: () => Promise<void>;
  onRemoveGiftCard: (last4: string) => Promise<void>;
  onPay: () => Promise<void>;
}) {
  const { cart, sending, giftCardsOnly } = props;
  const method = cart.shippingMethod;
  const { amountDue } = cart.totals;
  return (
    <div class="review-step">
      <dl class="review-choices">
        <Choice term="Contact" what="contact" onChange={() => props.onGo('details')}>
          {props.email}
          {props.phone ? <>, {props.phone}</> : null}
        </Choice>
        {cart.shippingAddress && !giftCardsOnly ? (
          <Choice term="Ship to" what="address" onChange={() => props.onGo('details')}>
            <PostalAddress address={cart.shippingAddress} />
          </Choice>
        ) : null}
        {method ? (
          <Choice term="Shipping method" what="shipping method" onChange={() => props.onGo('shipping')}>
            {method.name}
            {deliveryEstimate(method) ? ` · ${deliveryEstimate(method)}` : ''}
          </Choice>
        ) : null}
      </dl>
      {/* A code's notice is said beside the code, a gift card's beside the card. */}
      {cart.notices
        .filter((notice) => !isCodeNotice(notice) && !isGiftCardNotice(notice))
        .map((notice) => (
          <Notice key={notice.code} tone="warning">
            <p>{notice.detail}</p>
          </Notice>
        ))}
      <DiscountCodes
        cart={cart}
        value={props.discountCode}
        problem={props.discountProblem}
        status={props.codeStatus}
        sending={sending}
        onInput={props.onDiscountCode}
        onAdd={props.onAddCode}
        onRemove={props.onRemoveCode}
      />
      {giftCardsOnly && cart.giftCards.length === 0 ? null : (
        <GiftCardField
          cart={cart}
          value={props.giftCard.value}
          problem={props.giftCard.problem}
          status={props.giftCard.status}
          sending={sending}
          onInput={props.onGiftCard}
          onAdd={props.onAddGiftCard}
          onRemove={props.onRemoveGiftCard}
        />
      )}
      <Totals
        amounts={cart.totals}
        promotions={cart.promotions}
        tax={{ lines: cart.taxLines, included: cart.totals.taxIncluded, estimated: cart.taxEstimated }}
        giftCards={{ cards: cart.giftCards, amountDue }}
      />
      <FreeShippingProgress cart={cart} />
      <button type="button" class="button-primary" disabled={sending} onClick={() => void props.onPay()}>
        {sending
          ? amountDue.amount === 0
            ? 'Placing your order…'
            : 'Opening the payment page…'
          : payWords(amountDue)}
      </button>
      <p class="muted">
        {amountDue.amount === 0
          ? 'Your gift cards pay the whole order: nothing more is charged.'
          : "You confirm the payment on the payment provider's page; this shop never sees your card."}
      </p>
    </div>
  );
}
