/**
 * The one owner of the checkout steps' state: what the shopper typed (contact, address, discount
 * code), the shipping options offered and the method chosen, the step shown, and what was refused
 * or done (a code added or removed, read out).
 * A reducer holds it (the gift card field, its own hook); the steps get what they show and the
 * callbacks below, and keep no copies. Each step writes to the cart (its address, method, codes and
 * gift cards, under If-Match). A cart of gift cards only ships nothing: no address, no method.
 */
import { isPhoneNumber } from '@storefront/address';
import { StorefrontError, type Cart, type Checkout, type ShippingOption } from '@storefront/client';
import { useReducer } from 'preact/hooks';
import {
  addressInput,
  browserCountry,
  countryName,
  draftOf,
  draftProblems,
  emptyAddress,
  problemsAfterEdit,
  type AddressDraft,
  type AddressProblems,
} from '../../address-form.tsx';
import { describeError, isStatus } from '../../api.ts';
import { CartChangedError, cartStore, itemsOf, useCart } from '../../cart.ts';
import { marketStore } from '../../market.ts';
import {
  choicesOf,
  payOnHostedPage,
  placeOrder,
  saveDetails,
  savedCheckout,
  savedDetails,
} from '../../checkout.ts';
import { defaultAddress, useCustomer, type CustomerState } from '../../customer.ts';
import { focusSoon } from '../../focus.ts';
import { EMAIL } from '../../format.ts';
import { useOnlyGiftCards } from '../../gift-card-lines.ts';
import { paidAtCheckout } from '../../gift-cards.ts';
import { codeWords } from '../../promotions.ts';
import { navigate } from '../../router.tsx';
import { shortLines, type FormProblem } from './form-problem.tsx';
import { useGiftCardField } from './use-gift-card-field.ts';

export type Step = 'details' | 'shipping' | 'review';

/** A discount code as the service takes it (decision `cart-promotions`). */
const CODE = /^[A-Za-z0-9_-]{1,64}$/;

/** What the code field says when a code is not added: not valid, or a sixth one; null for another error. */
function codeRefusal(error: unknown): string | null {
  if (error instanceof StorefrontError && (error.title === 'discount_invalid' || error.status === 400))
    return 'This code is not valid.';
  if (error instanceof StorefrontError && error.title === 'too_many_discount_codes')
    return 'An order takes up to 5 codes. Remove one to add another.';
  return null;
}

/** What is refused at a field: the address's fields, the contact's and the discount code. */
export type FieldProblems = AddressProblems & { email?: string; phone?: string; discountCode?: string };

export interface CheckoutSteps {
  step: Step;
  email: string;
  phone: string;
  address: AddressDraft;
  /** The options for the saved address; null until the address is saved. */
  options: ShippingOption[] | null;
  methodId: string | null;
  /** The discount code field (the cart holds the codes added). */
  discountCode: string;
  /** What the last code added or removed did, read out ("Code WELCOME applied."). */
  codeStatus: string;
  sending: boolean;
  fields: FieldProblems;
  problem: FormProblem | null;
}

type Action =
  | { type: 'set'; patch: Partial<CheckoutSteps> }
  | { type: 'go'; step: Step }
  | { type: 'email'; email: string }
  | { type: 'phone'; phone: string }
  | { type: 'address'; address: AddressDraft };

function reducer(state: CheckoutSteps, action: Action): CheckoutSteps {
  switch (action.type) {
    case 'set':
      return { ...state, ...action.patch };
    case 'go':
      return { ...state, step: action.step, problem: null, fields: {} };
    case 'email': {
      const { email: _email, ...fields } = state.fields;
      return { ...state, email: action.email, fields };
    }
    case 'phone': {
      const { phone: _phone, ...fields } = state.fields;
      return { ...state, phone: action.phone, fields };
    }
    case 'address':
      return {
        ...state,
        address: action.address,
        fields: problemsAfterEdit(state.fields, state.address, action.address),
      };
  }
}

/** Signed in: the account's email, phone and default address; else what this browser kept. */
function firstState(cart: Cart | null, session: CustomerState): CheckoutSteps {
  const details = savedDetails();
  const account = session.customer;
  const from = cart?.shippingAddress ?? defaultAddress(session.addresses) ?? details?.address;
  return {
    step: 'details',
    email: account?.email ?? details?.email ?? savedCheckout()?.body.email ?? '',
    phone: details?.phone || account?.phone || '',
    // The country chosen in the footer first: an address there keeps the cart in its market.
    address: from ? draftOf(from) : emptyAddress(marketStore.state.country ?? browserCountry() ?? 'US'),
    options: null,
    methodId: cart?.shippingMethod?.id ?? null,
    discountCode: '',
    codeStatus: '',
    sending: false,
    fields: {},
    problem: null,
  };
}

/** The id a field's refusal focuses: the contact's fields, else the address's. */
const fieldId = (name: string) =>
  name === 'email' || name === 'phone' ? `checkout-${name}` : `ship-${name}`;

export function useCheckoutSteps(onDone: (checkout: Checkout) => void) {
  const { cart, loading } = useCart();
  const session = useCustomer();
  const [state, dispatch] = useReducer(reducer, null, () => firstState(cart, session));
  const set = (patch: Partial<CheckoutSteps>) => dispatch({ type: 'set', patch });
  const { email, phone, address, methodId } = state;
  const giftCards = useGiftCardField((error) => refused(error, cart?.items ?? []));
  /** Every line sells gift cards (null until known): nothing to ship, so no address is asked. */
  const giftCardsOnly = useOnlyGiftCards(cart?.items ?? null);

  function go(next: Step) {
    dispatch({ type: 'go', step: next });
    focusSoon('checkout-step-title');
  }

  /** A refusal: at the field it names when it names one, else above the form. */
  function refused(error: unknown, lines: Cart['items']) {
    if (error instanceof CartChangedError) {
      set({ problem: { message: error.message } });
      return;
    }
    if (error instanceof StorefrontError && error.title === 'validation_failed') {
      const found: Record<string, string> = {};
      for (const field of error.errors) {
        const name = field.pointer.replace(/^\/(shippingAddress\/)?/, '');
        found[name] = field.detail;
      }
      set({ fields: found });
      const first = Object.keys(found)[0];
      if (first) focusSoon(fieldId(first));
      return;
    }
    if (isStatus(error, 401)) {
      // The customer's session ended (the client forgot the token): the shopper is a guest now.
      set({ problem: { message: 'You were signed out. Sign in again, or check out as a guest.' } });
      return;
    }
    if (error instanceof StorefrontError && error.title === 'discount_invalid') {
      // Checkout refused a code the cart holds (it ended, or was used up meanwhile): the cart, read
      // again, says which beside the code.
      set({ problem: { message: 'One of your discount codes can no longer be used. Remove it to pay.' } });
      return;
    }
    if (
      error instanceof StorefrontError &&
      (error.title === 'gift_card_invalid' || error.title === 'gift_card_balance_too_low')
    ) {
      // Checkout refused a card the cart holds (disabled, expired, or spent meanwhile): the cart,
      // read again, says which beside the card.
      set({ problem: { message: `${error.detail} Remove it to pay, or use another card.` } });
      return;
    }
    if (error instanceof StorefrontError && error.title === 'insufficient_stock') {
      set({
        problem: {
          message:
            'Some items in your cart are not available in that quantity any more. Nothing was reserved.',
          stock: shortLines(error, lines),
        },
      });
      return;
    }
    set({ problem: { message: describeError(error) } });
  }

  async function submitDetails(event: Event) {
    event.preventDefault();
    const found: FieldProblems = {};
    if (!EMAIL.test(email.trim())) found.email = 'Enter your email address, like name@example.com.';
    if (phone.trim() !== '' && !isPhoneNumber(phone.trim()))
      found.phone = 'Enter a phone number: digits, spaces and + ( ) . -';
    if (!giftCardsOnly) Object.assign(found, draftProblems(address));
    if (Object.keys(found).length > 0) {
      set({ fields: found });
      focusSoon(fieldId(Object.keys(found)[0]!));
      return;
    }
    if (giftCardsOnly) {
      // Nothing to ship: the contact is all checkout needs (the codes go to the email).
      saveDetails({ email: email.trim(), phone: phone.trim(), address: savedDetails()?.address ?? null });
      set({ fields: {}, problem: null, options: [] });
      go('review');
      return;
    }
    const input = addressInput(address);
    set({ sending: true, fields: {}, problem: null });
    try {
      const addressed = await cartStore.setShippingAddress(input);
      saveDetails({ email: email.trim(), phone: phone.trim(), address: input });
      if (addressed.notices.some((notice) => notice.code === 'shipping_unavailable')) {
        set({
          fields: {
            country: `We do not ship to ${countryName(address.country)} yet. Choose another address.`,
          },
        });
        focusSoon('ship-country');
        return;
      }
      const offered = await cartStore.shippingOptions();
      const kept = offered.find((option) => option.id === addressed.shippingMethod?.id);
      set({ options: offered, methodId: kept?.id ?? offered[0]?.id ?? null });
      go(offered.length === 0 ? 'review' : 'shipping');
    } catch (error) {
      refused(error, cart!.items);
    } finally {
      set({ sending: false });
    }
  }

  /** The method stopped fitting (turned off, the cart changed): the options as they are now. */
  async function chooseAgain() {
    set({ options: await cartStore.shippingOptions().catch(() => []) });
    go('shipping');
    set({
      problem: { message: 'That shipping method is not available for this order any more. Choose another.' },
    });
  }

  async function submitShipping(event: Event) {
    event.preventDefault();
    if (!methodId) return;
    set({ sending: true, problem: null });
    try {
      await cartStore.setShippingMethod(methodId);
      go('review');
    } catch (error) {
      if (error instanceof StorefrontError && error.title === 'shipping_method_unavailable')
        await chooseAgain();
      else refused(error, cart!.items);
    } finally {
      set({ sending: false });
    }
  }

  /** Adds the code typed (checked as the service checks it first: letters, digits, - and _). */
  async function addCode() {
    const code = state.discountCode.trim();
    if (!code) return;
    const codeProblem = (message: string) => {
      set({ fields: { discountCode: message } });
      focusSoon('checkout-discount');
    };
    if (!CODE.test(code)) return codeProblem('This code is not valid.');
    set({ sending: true, fields: {}, problem: null, codeStatus: '' });
    try {
      const next = await cartStore.addDiscountCode(code);
      // The service keeps codes upper case, as it tells them apart.
      const held = code.toUpperCase();
      const notice = next.notices.find((entry) => entry.discountCode === held);
      set({
        discountCode: '',
        codeStatus: notice ? `Code ${held} added. ${codeWords(notice)}` : `Code ${held} applied.`,
      });
    } catch (error) {
      const refusal = codeRefusal(error);
      if (refusal) codeProblem(refusal);
      else refused(error, cart!.items);
    } finally {
      set({ sending: false });
    }
  }

  /** Removes one of the cart's codes; the focus goes back to the code field (its button is gone). */
  async function removeCode(code: string) {
    set({ sending: true, fields: {}, problem: null, codeStatus: '' });
    try {
      await cartStore.removeDiscountCode(code);
      set({ codeStatus: `Code ${code} removed.` });
      focusSoon('checkout-discount');
    } catch (error) {
      refused(error, cart!.items);
    } finally {
      set({ sending: false });
    }
  }

  async function pay() {
    if (!cart) return;
    set({ sending: true, problem: null });
    const lines = cart.items;
    const previewed = [cart.totals.total.amount, cart.totals.amountDue.amount];
    try {
      // Signed in, the client sends the customer's token too: the order is theirs (decision `customer-accounts`).
      const body = { cartId: cart.id, email: email.trim(), ...(phone.trim() ? { phone: phone.trim() } : {}) };
      const answer = await placeOrder(body, itemsOf(cart), choicesOf(cart));
      cartStore.forget();
      // The gift cards paid it all: the order is paid already, and its page confirms it.
      if (paidAtCheckout(answer)) {
        set({ sending: false });
        navigate(`/orders/${answer.order.id}`);
        return;
      }
      // The service charged what the review showed: straight to the provider's page. When a price
      // or a rate changed meanwhile, the order's own review says what it costs now.
      const charged = [answer.order.total.amount, answer.order.amountDue.amount];
      if (charged.join() === previewed.join() && answer.payment.provider === 'sandbox')
        payOnHostedPage(answer);
      else {
        set({ sending: false });
        onDone(answer);
      }
    } catch (error) {
      set({ sending: false });
      if (isStatus(error, 409)) {
        // The cart moved on (prices, stock, a method, a code ended, checked out elsewhere): show what it holds now.
        await cartStore.load().catch(() => undefined);
      }
      if (error instanceof StorefrontError && error.title === 'shipping_method_unavailable')
        await chooseAgain();
      else refused(error, lines);
    }
  }

  return {
    state,
    cart,
    loading,
    signedIn: session.customer !== null,
    savedAddresses: session.addresses ?? [],
    skipShipping: giftCardsOnly === true || (state.options !== null && state.options.length === 0),
    giftCardsOnly,
    giftCards,
    go,
    editEmail: (value: string) => dispatch({ type: 'email', email: value }),
    editPhone: (value: string) => dispatch({ type: 'phone', phone: value }),
    editAddress: (next: AddressDraft) => dispatch({ type: 'address', address: next }),
    /** A saved address chosen in the picker (or a new one): its problems go. */
    pickAddress: (next: AddressDraft) => set({ address: next, fields: {} }),
    chooseMethod: (id: string) => set({ methodId: id }),
    editDiscountCode: (value: string) => set({ discountCode: value }),
    submitDetails,
    submitShipping,
    addCode,
    removeCode,
    pay,
  };
}
