/** Step 3: the choices made (each with its way back), the discount code, the totals and "Pay". */
import { deliveryEstimate } from '@storefront/blocks';
import type { Cart } from '@storefront/client';
import type { ComponentChildren } from 'preact';
import { PostalAddress } from '../../address-form.tsx';
import { Totals } from '../../order-parts.tsx';
import { Money, Notice } from '../../ui.tsx';
import type { Step } from './use-checkout-steps.ts';

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
  sending: boolean;
  onGo: (step: Step) => void;
  onDiscountCode: (value: string) => void;
  onApplyCode: (code: string | null) => Promise<void>;
  onPay: () => Promise<void>;
}) {
  const { cart, discountCode, discountProblem, sending } = props;
  const method = cart.shippingMethod;
  return (
    <div class="review-step">
      <dl class="review-choices">
        <Choice term="Contact" what="contact" onChange={() => props.onGo('details')}>
          {props.email}
          {props.phone ? <>, {props.phone}</> : null}
        </Choice>
        {cart.shippingAddress ? (
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
      {cart.notices.map((notice) => (
        <Notice key={notice.code} tone="warning">
          <p>{notice.detail}</p>
        </Notice>
      ))}
      <form
        class="discount-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (discountCode.trim()) void props.onApplyCode(discountCode.trim());
        }}
      >
        <div class="field">
          <label for="checkout-discount">Discount code (optional)</label>
          <div class="inline-field">
            <input
              id="checkout-discount"
              type="text"
              autoComplete="off"
              autoCapitalize="characters"
              maxLength={64}
              value={discountCode}
              aria-invalid={discountProblem ? 'true' : undefined}
              aria-describedby={discountProblem ? 'checkout-discount-problem' : undefined}
              onInput={(event) => props.onDiscountCode(event.currentTarget.value)}
            />
            <button type="submit" class="button-secondary" disabled={sending}>
              Apply
            </button>
          </div>
          {discountProblem ? (
            <p id="checkout-discount-problem" class="field-problem">
              {discountProblem}
            </p>
          ) : null}
        </div>
        {cart.discountCode ? (
          <p>
            Code {cart.discountCode} applied.{' '}
            <button
              type="button"
              class="button-link"
              disabled={sending}
              onClick={() => void props.onApplyCode(null)}
            >
              Remove <span class="visually-hidden">code {cart.discountCode}</span>
            </button>
          </p>
        ) : null}
      </form>
      <Totals
        amounts={cart.totals}
        discountCode={cart.discountCode}
        tax={{ lines: cart.taxLines, included: cart.totals.taxIncluded, estimated: cart.taxEstimated }}
      />
      <button type="button" class="button-primary" disabled={sending} onClick={() => void props.onPay()}>
        {sending ? (
          'Opening the payment page…'
        ) : (
          <>
            Pay <Money amount={cart.totals.total.amount} currency={cart.subtotal.currency} />
          </>
        )}
      </button>
      <p class="muted">
        You confirm the payment on the payment provider&apos;s page; this shop never sees your card.
      </p>
    </div>
  );
}
