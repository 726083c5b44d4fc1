/**
 * The checkout's three steps (decision `checkout-with-shipping`): contact and address, the shipping method, the review. The
 * state is the hook's (use-checkout-steps.ts); this lays out the step list, the step shown and the
 * order's summary beside it.
 */
import type { Checkout } from '@storefront/client';
import { CartSummary } from '../../cart-summary.tsx';
import { SummaryLines } from '../../order-parts.tsx';
import { Link } from '../../router.tsx';
import { Loading, PageTitle } from '../../ui.tsx';
import { DetailsStep } from './details-step.tsx';
import { FormProblemNotice } from './form-problem.tsx';
import { ReviewStep } from './review-step.tsx';
import { ShippingStep } from './shipping-step.tsx';
import { useCheckoutSteps, type Step } from './use-checkout-steps.ts';

const STEPS: { step: Step; label: string }[] = [
  { step: 'details', label: 'Contact and address' },
  { step: 'shipping', label: 'Shipping' },
  { step: 'review', label: 'Review and pay' },
];

/** A step's name: a cart of gift cards only asks for the contact alone (decision `shop-gift-cards`). */
const labelOf = (entry: { step: Step; label: string }, giftCardsOnly: boolean) =>
  giftCardsOnly && entry.step === 'details' ? 'Contact' : entry.label;

/** Where the shopper is, with the steps behind them as buttons back. */
function StepList({
  current,
  onGo,
  skipShipping,
  giftCardsOnly,
}: {
  current: Step;
  onGo: (step: Step) => void;
  skipShipping: boolean;
  giftCardsOnly: boolean;
}) {
  const at = STEPS.findIndex((entry) => entry.step === current);
  return (
    <ol class="checkout-steps" aria-label="Checkout steps">
      {STEPS.map((entry, index) => {
        const label = `${index + 1}. ${labelOf(entry, giftCardsOnly)}`;
        const skipped = entry.step === 'shipping' && skipShipping;
        return (
          <li
            key={entry.step}
            aria-current={index === at ? 'step' : undefined}
            class={index === at ? 'current' : undefined}
          >
            {index < at && !skipped ? (
              <button type="button" class="button-link" onClick={() => onGo(entry.step)}>
                {label}
              </button>
            ) : (
              <span>{label}</span>
            )}
          </li>
        );
      })}
    </ol>
  );
}

export function Steps({ onDone }: { onDone: (checkout: Checkout) => void }) {
  const flow = useCheckoutSteps(onDone);
  const { cart, state } = flow;
  const { step } = state;
  const sending = state.sending || flow.giftCards.state.sending;
  const giftCardsOnly = flow.giftCardsOnly === true;

  // Until its products are read, whether the cart ships anything (and so the address form) is not known.
  if ((flow.loading && !cart) || (cart && cart.items.length > 0 && flow.giftCardsOnly === null))
    return <Loading label="Loading your cart…" />;
  if (!cart || cart.items.length === 0) {
    return (
      <section>
        <PageTitle title="Checkout">Checkout</PageTitle>
        <p>Your cart is empty.</p>
        <p>
          <Link to="/">Continue shopping</Link>
        </p>
      </section>
    );
  }

  const title = labelOf(
    STEPS.find((entry) => entry.step === step)!,
    giftCardsOnly,
  );
  return (
    <section class="checkout">
      <PageTitle title="Checkout">Checkout</PageTitle>
      <StepList
        current={step}
        onGo={flow.go}
        skipShipping={flow.skipShipping}
        giftCardsOnly={giftCardsOnly}
      />
      <div class="checkout-columns">
        <div class="checkout-form">
          <h2 id="checkout-step-title" tabIndex={-1}>
            {title}
          </h2>
          <FormProblemNotice problem={state.problem} />
          {step === 'details' ? (
            <DetailsStep
              email={state.email}
              phone={state.phone}
              address={state.address}
              fields={state.fields}
              sending={sending}
              signedIn={flow.signedIn}
              savedAddresses={flow.savedAddresses}
              giftCardsOnly={giftCardsOnly}
              onEmail={flow.editEmail}
              onPhone={flow.editPhone}
              onAddress={flow.editAddress}
              onPickAddress={flow.pickAddress}
              onSubmit={flow.submitDetails}
            />
          ) : null}
          {step === 'shipping' && state.options ? (
            <ShippingStep
              options={state.options}
              methodId={state.methodId}
              sending={sending}
              onChoose={flow.chooseMethod}
              onSubmit={flow.submitShipping}
            />
          ) : null}
          {step === 'review' ? (
            <ReviewStep
              cart={cart}
              email={state.email}
              phone={state.phone}
              discountCode={state.discountCode}
              discountProblem={state.fields.discountCode}
              codeStatus={state.codeStatus}
              giftCard={flow.giftCards.state}
              giftCardsOnly={giftCardsOnly}
              sending={sending}
              onGo={flow.go}
              onDiscountCode={flow.editDiscountCode}
              onAddCode={flow.addCode}
              onRemoveCode={flow.removeCode}
              onGiftCard={flow.giftCards.edit}
              onAddGiftCard={flow.giftCards.add}
              onRemoveGiftCard={flow.giftCards.remove}
              onPay={flow.pay}
            />
          ) : null}
        </div>
        <aside class="summary" aria-labelledby="summary-title">
          <h2 id="summary-title">Your order</h2>
          <SummaryLines lines={cart.items} />
          {step === 'review' ? null : (
            <CartSummary
              cart={cart}
              note={
                giftCardsOnly
                  ? 'Gift cards are delivered by email: nothing is shipped.'
                  : 'Shipping and tax are worked out from your address.'
              }
            />
          )}
        </aside>
      </div>
    </section>
  );
}
