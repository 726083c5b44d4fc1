/** The shop's frame (header with the `main` menu and the cart, footer with the `footer` menu and the country selector) and its routes. */
import type { Menu } from '@storefront/client';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { isStatus, shopApi } from './api.ts';
import { cartStore, itemCount, useCart } from './cart.ts';
import { CountrySelect } from './country-select.tsx';
import { customerStore, useCustomer } from './customer.ts';
import { useResource } from './data.ts';
import { marketStore } from './market.ts';
import { CartPage } from './pages/cart.tsx';
import { CollectionPage } from './pages/collection.tsx';
import { ContentPage } from './pages/content.tsx';
import { HomePage } from './pages/home.tsx';
import { NotFound } from './pages/not-found.tsx';
import { ProductPage } from './pages/product.tsx';
import { SearchPage } from './pages/search/search-page.tsx';
import { href, Link, match, navigate, useLocation } from './router.tsx';
import { readSearch, searchPath } from './search.ts';
import { AccountPage, CheckoutPage, OrderPage, SignInPage } from './pages/lazy.ts';

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

function MenuLinks({ items, label, id }: { items: Menu['items']; label: string; id?: string }) {
  if (items.length === 0) return null;
  return (
    <nav aria-label={label} id={id}>
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
  if (match('/search', path)) return <SearchPage />;
  if (match('/cart', path)) return <CartPage />;
  if (match('/checkout', path)) return <CheckoutPage />;
  if (match('/account', path)) return <AccountPage />;
  if (match('/account/sign-in', path)) return <SignInPage />;
  return <NotFound />;
}

/** A line icon of the header, 24 units square, drawn in the text's colour; hidden from screen readers. */
function Icon({ size, children }: { size: number; children: ComponentChildren }) {
  return (
    <svg
      aria-hidden="true"
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      stroke-width="2.2"
      stroke-linecap="round"
      stroke-linejoin="round"
    >
      {children}
    </svg>
  );
}

const SearchIcon = () => (
  <Icon size={20}>
    <circle cx="10.5" cy="10.5" r="6.5" />
    <path d="m15.5 15.5 5 5" />
  </Icon>
);

const MenuIcon = ({ open }: { open: boolean }) => (
  <Icon size={22}>{open ? <path d="M6 6l12 12M18 6 6 18" /> : <path d="M4 7h16M4 12h16M4 17h16" />}</Icon>
);

const AccountIcon = () => (
  <Icon size={20}>
    <circle cx="12" cy="8" r="4" />
    <path d="M4 21c0-4.4 3.6-7 8-7s8 2.6 8 7" />
  </Icon>
);

/** The cart on a phone (the word "Cart" on a wider screen). */
const CartIcon = () => (
  <Icon size={22}>
    <path d="M5 8h14l-1.2 12H6.2z" />
    <path d="M9 10V6.5a3 3 0 0 1 6 0V10" />
  </Icon>
);

/** "Sign in" for a guest, "Account" once signed in; on a phone, the icon (the words stay for screen readers). */
function AccountLink() {
  const { signedIn } = useCustomer();
  const { path } = useLocation();
  const to = signedIn ? '/account' : '/account/sign-in';
  return (
    <a href={href(to)} class="account-link" aria-current={path === to ? 'page' : undefined}>
      <AccountIcon />
      <span class="account-link-text">{signedIn ? 'Account' : 'Sign in'}</span>
    </a>
  );
}

/** The search box: a search of the whole catalog at `/search?q=…`; it shows the words searched. */
function SearchForm({ id, inputRef }: { id: string; inputRef: { current: HTMLInputElement | null } }) {
  const { path, query } = useLocation();
  const searched = path === '/search' ? (query.get('q') ?? '') : '';
  const [text, setText] = useState(searched);
  useEffect(() => setText(searched), [searched]);
  return (
    <form
      id={id}
      class="site-search"
      role="search"
      aria-label="Search products"
      onSubmit={(event) => {
        event.preventDefault();
        // A new search starts without the last one's filters and sort.
        navigate(searchPath({ ...readSearch(new URLSearchParams()), q: text.trim() }));
      }}
    >
      <label class="visually-hidden" for={`${id}-input`}>
        Search products
      </label>
      <input
        ref={inputRef}
        id={`${id}-input`}
        type="search"
        name="q"
        value={text}
        maxLength={200}
        placeholder="Search products"
        autoComplete="off"
        enterKeyHint="search"
        onInput={(event) => setText(event.currentTarget.value)}
      />
      <button type="submit" class="site-search-button">
        <SearchIcon />
        <span class="visually-hidden">Search</span>
      </button>
    </form>
  );
}

/**
 * The header. Wide screens show the store's name, the `main` menu, the search box and the cart in
 * one row. On a phone (below 48rem) it is one compact row (a menu button, the name, a search
 * button, the account and the cart as icons): the name takes the rest of the row, on two lines
 * when it needs them; the menu and the search box open below it, one at a time; Escape closes
 * them and a new page closes the menu.
 */
function Header({ name, menu, count }: { name: string; menu: Menu['items']; count: number }) {
  const { path } = useLocation();
  const [panel, setPanel] = useState<'menu' | 'search' | null>(null);
  const menuButton = useRef<HTMLButtonElement>(null);
  const searchButton = useRef<HTMLButtonElement>(null);
  const searchInput = useRef<HTMLInputElement>(null);
  useEffect(() => setPanel(null), [path]);
  useEffect(() => {
    if (panel === 'search') searchInput.current?.focus();
  }, [panel]);

  function toggle(which: 'menu' | 'search') {
    setPanel((open) => (open === which ? null : which));
  }

  return (
    <header
      class="site-header"
      data-panel={panel ?? undefined}
      onKeyDown={(event) => {
        if (event.key !== 'Escape' || panel === null) return;
        (panel === 'menu' ? menuButton : searchButton).current?.focus();
        setPanel(null);
      }}
    >
      <div class="site-header-inner">
        {menu.length > 0 ? (
          <button
            ref={menuButton}
            type="button"
            class="icon-button menu-toggle"
            aria-expanded={panel === 'menu'}
            aria-controls="site-nav"
            onClick={() => toggle('menu')}
          >
            <MenuIcon open={panel === 'menu'} />
            <span class="visually-hidden">Menu</span>
          </button>
        ) : null}
        <Link to="/" class="site-name">
          {name}
        </Link>
        <MenuLinks items={menu} label="Main" id="site-nav" />
        <SearchForm id="site-search" inputRef={searchInput} />
        <button
          ref={searchButton}
          type="button"
          class="icon-button search-toggle"
          aria-expanded={panel === 'search'}
          aria-controls="site-search"
          onClick={() => toggle('search')}
        >
          <SearchIcon />
          <span class="visually-hidden">Show search</span>
        </button>
        <AccountLink />
        <Link to="/cart" class="cart-link" aria-label={`Cart, ${count} ${count === 1 ? 'item' : 'items'}`}>
          <CartIcon />
          <span class="cart-link-text">Cart</span> <span class="cart-count">{count}</span>
        </Link>
      </div>
    </header>
  );
}

export function App() {
  const store = useResource('store', () => shopApi().store.get());
  const cart = useCart();
  const mainMenu = useMenu('main');
  const footerMenu = useMenu('footer');
  useEffect(() => {
    void cartStore.load().catch(() => undefined);
    void customerStore.load().catch(() => undefined);
    // Without the markets the shop sells in the default market (and shows no country selector).
    void marketStore.load().catch(() => undefined);
  }, []);
  const count = itemCount(cart.cart);
  const name = store.data?.name ?? 'Shop';

  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <Header name={name} menu={mainMenu} count={count} />
      <main id="main" class="site-main">
        <Routes />
      </main>
      <footer class="site-footer">
        <MenuLinks items={footerMenu} label="Footer" />
        <CountrySelect />
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
