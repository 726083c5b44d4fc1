/**
 * The review of an order already made (a reload of the review step, or a price that changed when
 * "Pay" made it): what it costs now, until when it is held, "Pay" and "Return to cart".
 */
import type { Checkout } from '@storefront/client';
import { useState } from 'preact/hooks';
import { describeError } from '../../api.ts';
import { cartStore, itemsOf } from '../../cart.ts';
import { payOnHostedPage } from '../../checkout.ts';
import { payWords } from '../../gift-cards.ts';
import { HeldUntil, SummaryLines, Totals } from '../../order-parts.tsx';
import { navigate } from '../../router.tsx';
import { Notice, PageTitle } from '../../ui.tsx';

export function OrderReview({ checkout }: { checkout: Checkout }) {
  const [leaving, setLeaving] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const { order, payment } = checkout;
  const sandbox = payment.provider === 'sandbox';
  return (
    <section class="checkout review">
      <PageTitle title="Review and pay">Review and pay</PageTitle>
      <p>
        Order #{order.number} for {order.email}. It is held for you until <HeldUntil order={order} />.
      </p>
      <SummaryLines lines={order.lines} />
      <Totals
        amounts={order}
        promotions={order.promotions}
        tax={{ lines: order.taxLines, included: order.taxIncluded }}
        giftCards={{ cards: order.giftCards, amountDue: order.amountDue }}
      />
      {sandbox ? (
        <button
          type="button"
          class="button-primary"
          disabled={leaving}
          onClick={() => {
            setLeaving(true);
            payOnHostedPage(checkout);
          }}
        >
          {leaving ? 'Opening the payment page…' : payWords(order.amountDue)}
        </button>
      ) : (
        <Notice tone="warning">
          <p>
            This reference shop pays with the sandbox provider only; this store uses {payment.provider} (see
            docs/shop.md).
          </p>
        </Notice>
      )}
      <p class="muted">
        You confirm the payment on the payment provider&apos;s page; this shop never sees your card.
      </p>
      <p>
        <button
          type="button"
          class="button-link"
          disabled={leaving}
          onClick={() => {
            setLeaving(true);
            setProblem(null);
            // Back to the cart with this order's lines; checking out unchanged resumes this order.
            cartStore.restore(itemsOf(order)).then(
              () => navigate('/cart'),
              (error: unknown) => {
                setLeaving(false);
                setProblem(describeError(error));
              },
            );
          }}
        >
          Return to cart
        </button>
      </p>
      {problem ? (
        <div class="notice notice-error" role="alert">
          <p>{problem}</p>
        </div>
      ) : null}
    </section>
  );
}
