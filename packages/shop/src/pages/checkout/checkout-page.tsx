/**
 * Checkout in three steps any shopper knows (decision `checkout-with-shipping`): contact and address (a form that follows the
 * country), the shipping method with prices and delivery estimates, and a review with the totals
 * the service will charge (the cart's preview), then the payment provider's hosted page. Each step
 * writes to the cart (its address, method and code, under If-Match), so a reload, another tab and
 * the service all see the same choices. What the shopper typed is kept on this browser for the
 * next visit.
 */
import type { Checkout } from '@storefront/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useCart } from '../../cart.ts';
import { saveCheckout, savedCheckout, sendCheckout, stillHeld } from '../../checkout.ts';
import { useCustomer } from '../../customer.ts';
import { Loading } from '../../ui.tsx';
import { OrderReview } from './order-review.tsx';
import { Steps } from './steps.tsx';

export function CheckoutPage() {
  const { cart, loading } = useCart();
  const customer = useCustomer();
  const [checkout, setCheckout] = useState<Checkout | null>(null);
  const [resuming, setResuming] = useState(() => savedCheckout() !== null);
  const started = useRef(false);

  // With an empty cart, this tab's checkout is the review step reloaded (the cart became its order):
  // the same key and body answer it again. A cart with items (restored, or filled since) goes
  // through the steps, which resume that order when nothing changed (placeOrder).
  useEffect(() => {
    if (!resuming || loading || started.current) return;
    started.current = true;
    const saved = savedCheckout();
    if (!saved || (cart !== null && cart.items.length > 0)) {
      setResuming(false);
      return;
    }
    sendCheckout(saved.body, saved.idempotencyKey).then(
      (answer) => {
        if (stillHeld(answer)) setCheckout(answer);
        else saveCheckout(null);
        setResuming(false);
      },
      () => {
        saveCheckout(null);
        setResuming(false);
      },
    );
  }, [resuming, loading, cart]);

  if (resuming) return <Loading label="Loading your checkout…" />;
  if (checkout) return <OrderReview checkout={checkout} />;
  // A signed-in customer's form starts from their account: wait for it (briefly) to fill it in.
  if (customer.signedIn && customer.loading && !customer.customer)
    return <Loading label="Loading your details…" />;
  return <Steps onDone={setCheckout} />;
}
