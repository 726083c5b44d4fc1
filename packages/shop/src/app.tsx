/** The shop's frame (header with the `main` menu and the cart, footer with the `footer` menu) and its routes. */
import type { Menu } from '@storefront/client';
import { useEffect } from 'preact/hooks';
import { isStatus, shopApi } from './api.ts';
import { cartStore, itemCount, useCart } from './cart.ts';
import { useResource } from './data.ts';
import { CartPage } from './pages/cart.tsx';
import { CollectionPage } from './pages/collection.tsx';
import { ContentPage } from './pages/content.tsx';
import { HomePage } from './pages/home.tsx';
import { NotFound } from './pages/not-found.tsx';
import { ProductPage } from './pages/product.tsx';
import { Link, match, useLocation } from './router.tsx';
import { CheckoutPage, OrderPage } from './pages/lazy.ts';

function useMenu(handle: string): Menu['items'] {
  // A store without this menu simply shows none.
  const menu = useResource(`menu:${handle}`, () =>
    shopApi()
      .menus.get(handle)
      .catch((error: unknown) => {
        if (isStatus(error, 404)) return { handle, items: [] };
        throw error;
      }),
  );
  return menu.data?.items ?? [];
}

function MenuLinks({ items, label }: { items: Menu['items']; label: string }) {
  if (items.length === 0) return null;
  return (
    <nav aria-label={label}>
      <ul class="menu">
        {items.map((item, i) => (
          <li key={i}>
            <Link to={item.url}>{item.label}</Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function Routes() {
  const { path } = useLocation();
  let params: Record<string, string> | null;
  if (path === '/') return <HomePage />;
  // Keyed by slug: another collection starts again at its first page.
  if ((params = match('/collections/:slug', path)))
    return <CollectionPage key={params.slug} slug={params.slug!} />;
  // A handle; an old link's product id, or an earlier handle, is replaced by the current handle.
  if ((params = match('/products/:handle', path))) return <ProductPage handle={params.handle!} />;
  if ((params = match('/pages/:slug', path))) return <ContentPage slug={params.slug!} />;
  if ((params = match('/orders/:id', path))) return <OrderPage id={params.id!} />;
  if (match('/cart', path)) return <CartPage />;
  if (match('/checkout', path)) return <CheckoutPage />;
  return <NotFound />;
}

export function App() {
  const store = useResource('store', () => shopApi().store.get());
  const cart = useCart();
  const mainMenu = useMenu('main');
  const footerMenu = useMenu('footer');
  useEffect(() => {
    void cartStore.load().catch(() => undefined);
  }, []);
  const count = itemCount(cart.cart);
  const name = store.data?.name ?? 'Shop';

  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="site-header">
        <div class="site-header-inner">
          <Link to="/" class="site-name">
            {name}
          </Link>
          <MenuLinks items={mainMenu} label="Main" />
          <Link to="/cart" class="cart-link" aria-label={`Cart, ${count} ${count === 1 ? 'item' : 'items'}`}>
            Cart <span class="cart-count">{count}</span>
          </Link>
        </div>
      </header>
      <main id="main" class="site-main">
        <Routes />
      </main>
      <footer class="site-footer">
        <MenuLinks items={footerMenu} label="Footer" />
        <p class="muted">{name} · a reference shop on the Storefront API</p>
      </footer>
    </>
  );
}

/** Shown instead of the shop when no publishable key is configured. */
export function SetUp() {
  return (
    <main id="main" class="site-main setup">
      <h1>This shop has no publishable key</h1>
      <p>
        Start the service with the demo store (the default with the embedded database), or set{' '}
        <code>SHOP_PUBLISHABLE_KEY</code> to a key of your store whose allowed origins include this
        site&apos;s origin (<code>{window.location.origin}</code>). See docs/shop.md.
      </p>
    </main>
  );
}
