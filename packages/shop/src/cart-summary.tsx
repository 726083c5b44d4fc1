/**
 * The cart's promotions as its summaries show them (decision `cart-promotions`): a line per promotion
 * off the goods, by the name the merchant gave it, shipping shown free when a promotion took it off,
 * and how much more the goods need for free shipping. The cart page and the checkout's summary show
 * `CartSummary`; the totals of the review and of an order (order-parts.tsx) show the same lines.
 */
import type { Cart } from '@storefront/client';
import { partPromotions, type AppliedPromotion } from './promotions.ts';
import { Money } from './ui.tsx';

/** Rows of a `dl.totals`: each promotion off the goods with what it takes off ("10 % off over $50 −$5.30"). */
export function DiscountLines(props: {
  promotions: readonly AppliedPromotion[];
  discount: number;
  currency: string;
}) {
  const { promotions, discount, currency } = props;
  // An order from before promotions has a discount without them.
  if (promotions.length === 0 && discount > 0)
    return (
      <div>
        <dt>Discount</dt>
        <dd>
          −<Money amount={discount} currency={currency} />
        </dd>
      </div>
    );
  return (
    <>
      {promotions.map((promotion) => (
        <div key={promotion.id} class="totals-promotion">
          <dt>{promotion.name}</dt>
          <dd>
            −<Money amount={promotion.amount.amount} currency={currency} />
          </dd>
        </div>
      ))}
    </>
  );
}

/** The shipping row: "Free" with the promotion's name when one took it all off, else what it costs. */
export function ShippingLine(props: {
  amount: number;
  currency: string;
  promotions: readonly AppliedPromotion[];
}) {
  const free = props.amount === 0 && props.promotions.length > 0;
  return (
    <div>
      <dt>
        Shipping
        {props.promotions.length > 0 ? (
          <span class="muted"> ({props.promotions.map((promotion) => promotion.name).join(', ')})</span>
        ) : null}
      </dt>
      <dd>{free ? 'Free' : <Money amount={props.amount} currency={props.currency} />}</dd>
    </div>
  );
}

type Priced = Pick<Cart, 'promotions' | 'freeShippingRemaining' | 'totals'>;

/**
 * "Add $12.00 for free shipping" while the goods are short of a free-shipping promotion, in a polite
 * live region kept in the page, so a change of quantity that reaches it is read out ("Your order
 * ships free", which the shipping row shows already, is for screen readers only).
 */
export function FreeShippingProgress({ cart }: { cart: Priced }) {
  const remaining = cart.freeShippingRemaining;
  const free =
    cart.totals.shipping.amount === 0 &&
    partPromotions(cart.promotions, cart.totals.discount.amount).shipping.length > 0;
  return (
    <p class={remaining ? 'free-shipping' : 'free-shipping visually-hidden'} role="status">
      {remaining ? (
        <>
          Add <Money amount={remaining.amount} currency={remaining.currency} /> for free shipping.
        </>
      ) : free ? (
        'Your order ships free.'
      ) : null}
    </p>
  );
}

/**
 * The cart before its checkout is priced (the cart page, the checkout's summary until the review):
 * the subtotal, the promotions, free shipping, and the total so far when something comes off.
 */
export function CartSummary({ cart, note }: { cart: Cart; note: string }) {
  const currency = cart.subtotal.currency;
  const { discount, shipping } = cart.totals;
  const parted = partPromotions(cart.promotions, discount.amount);
  return (
    <>
      <dl class="totals cart-totals">
        <div>
          <dt>Subtotal</dt>
          <dd>
            <Money amount={cart.subtotal.amount} currency={currency} />
          </dd>
        </div>
        <DiscountLines promotions={parted.goods} discount={discount.amount} currency={currency} />
        {parted.shipping.length > 0 ? (
          <ShippingLine amount={shipping.amount} currency={currency} promotions={parted.shipping} />
        ) : null}
        {discount.amount > 0 ? (
          <div class="totals-total">
            <dt>Estimated total</dt>
            <dd>
              <Money amount={cart.subtotal.amount - discount.amount} currency={currency} />
            </dd>
          </div>
        ) : null}
      </dl>
      <FreeShippingProgress cart={cart} />
      <p class="muted">{note}</p>
    </>
  );
}
