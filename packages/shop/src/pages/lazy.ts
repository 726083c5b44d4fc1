/** The pages loaded when first shown (`lazyPage`): they carry every country's address rules. */
import { lazyPage } from '../ui.tsx';

export const CheckoutPage = lazyPage(
  () => import('./checkout/checkout-page.tsx').then((page) => page.CheckoutPage),
  'Loading the checkout…',
);

export const OrderPage = lazyPage(
  () => import('./order.tsx').then((page) => page.OrderPage),
  'Loading your order…',
);

export const AccountPage = lazyPage(
  () => import('./account/account-page.tsx').then((page) => page.AccountPage),
  'Loading your account…',
);

export const SignInPage = lazyPage(
  () => import('./account/sign-in.tsx').then((page) => page.SignInPage),
  'Loading…',
);
