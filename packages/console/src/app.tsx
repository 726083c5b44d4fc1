/**
 * The console's shell: sign-in gate, navigation, and one route per screen. Sign-in and Home are in
 * the main chunk; every other screen is its own chunk, loaded when it is first opened (a navigation
 * is a transition, so the current screen stays until the next one has loaded).
 */
import { lazy, Suspense, useEffect, useRef, useState, type ComponentType, type ReactNode } from 'react';
import { NavLink, Route, Routes, useLocation } from 'react-router';
import { useSession } from './session.tsx';
import { useStoreSettings } from './data/settings.ts';
import { Loading, PageHeader } from './ui/components.tsx';
import { SignIn } from './screens/sign-in.tsx';
import { Home } from './screens/home.tsx';

/** A screen exported by name from a module that is loaded when the screen is first rendered. */
function lazyScreen<K extends string, M extends Record<K, ComponentType>>(load: () => Promise<M>, name: K) {
  return lazy(() => load().then((module) => ({ default: module[name] })));
}

const products = () => import('./screens/products/index.tsx');
const collections = () => import('./screens/collections/index.tsx');
const menus = () => import('./screens/menus.tsx');
const pages = () => import('./screens/pages.tsx');
const orders = () => import('./screens/orders/index.tsx');
const customers = () => import('./screens/customers/index.tsx');
const webhooks = () => import('./screens/webhooks/index.tsx');
const themesApps = () => import('./screens/themes-apps.tsx');

const ProductsList = lazyScreen(products, 'ProductsList');
const ProductEdit = lazyScreen(products, 'ProductEdit');
const CollectionsList = lazyScreen(collections, 'CollectionsList');
const CollectionEdit = lazyScreen(collections, 'CollectionEdit');
const Regions = lazyScreen(() => import('./screens/regions.tsx'), 'Regions');
// The builder (dnd-kit, the renderer) is its own chunk too, loaded when a region is opened.
const RegionBuilder = lazy(() => import('./builder/region-builder.tsx'));
const Menus = lazyScreen(menus, 'Menus');
const MenuEdit = lazyScreen(menus, 'MenuEdit');
const Pages = lazyScreen(pages, 'Pages');
const PageEdit = lazyScreen(pages, 'PageEdit');
const OrdersList = lazyScreen(orders, 'OrdersList');
const OrderDetail = lazyScreen(orders, 'OrderDetail');
const draftOrders = () => import('./screens/draft-orders/index.tsx');
const DraftOrdersList = lazyScreen(draftOrders, 'DraftOrdersList');
const NewDraftOrder = lazyScreen(draftOrders, 'NewDraftOrder');
const DraftOrderPage = lazyScreen(draftOrders, 'DraftOrderPage');
const CustomersList = lazyScreen(customers, 'CustomersList');
const CustomerDetail = lazyScreen(customers, 'CustomerDetail');
const PrivacyLog = lazyScreen(customers, 'PrivacyLog');
const Pricing = lazyScreen(() => import('./screens/pricing/index.tsx'), 'Pricing');
const TaxReport = lazyScreen(() => import('./screens/pricing/tax-report.tsx'), 'TaxReport');
const Shipping = lazyScreen(() => import('./screens/shipping/index.tsx'), 'Shipping');
const Markets = lazyScreen(() => import('./screens/markets/index.tsx'), 'Markets');
const CustomerGroups = lazyScreen(() => import('./screens/customer-groups/index.tsx'), 'CustomerGroups');
const PriceLists = lazyScreen(() => import('./screens/price-lists/index.tsx'), 'PriceLists');
const Promotions = lazyScreen(() => import('./screens/promotions/index.tsx'), 'Promotions');
const giftCards = () => import('./screens/gift-cards/index.tsx');
const GiftCards = lazyScreen(giftCards, 'GiftCards');
const GiftCardDetail = lazyScreen(giftCards, 'GiftCardDetail');
const imports = () => import('./screens/imports/index.tsx');
const Imports = lazyScreen(imports, 'Imports');
const ImportDetail = lazyScreen(imports, 'ImportDetail');
const Keys = lazyScreen(() => import('./screens/keys/index.tsx'), 'Keys');
const Webhooks = lazyScreen(webhooks, 'Webhooks');
const WebhookDetail = lazyScreen(webhooks, 'WebhookDetail');
const Email = lazyScreen(() => import('./screens/email.tsx'), 'Email');
const Staff = lazyScreen(() => import('./screens/staff.tsx'), 'Staff');
const Settings = lazyScreen(() => import('./screens/settings.tsx'), 'Settings');
const Themes = lazyScreen(themesApps, 'Themes');
const Apps = lazyScreen(themesApps, 'Apps');

const NAV: { to: string; label: string; end?: boolean }[] = [
  { to: '/', label: 'Home', end: true },
  { to: '/orders', label: 'Orders' },
  { to: '/draft-orders', label: 'Drafts' },
  { to: '/customers', label: 'Customers' },
  { to: '/customer-groups', label: 'Customer groups' },
  { to: '/products', label: 'Products' },
  { to: '/collections', label: 'Collections' },
  { to: '/content/regions', label: 'Regions' },
  { to: '/content/menus', label: 'Menus' },
  { to: '/content/pages', label: 'Pages' },
  { to: '/pricing', label: 'Discounts, tax & shipping' },
  { to: '/tax-report', label: 'Tax report' },
  { to: '/shipping', label: 'Shipping' },
  { to: '/markets', label: 'Markets' },
  { to: '/price-lists', label: 'Price lists' },
  { to: '/promotions', label: 'Promotions' },
  { to: '/gift-cards', label: 'Gift cards' },
  { to: '/imports', label: 'Import' },
  { to: '/keys', label: 'Storefront keys' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/email', label: 'Email' },
  { to: '/staff', label: 'Staff' },
  { to: '/themes', label: 'Themes' },
  { to: '/apps', label: 'Apps' },
  { to: '/settings', label: 'Settings' },
];

function Layout({ children }: { children: ReactNode }) {
  const { session, signOut } = useSession();
  const store = useStoreSettings();
  const location = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const first = useRef(true);

  // After navigating, focus the new page's heading (screen readers announce it) and close the menu.
  useEffect(() => {
    setMenuOpen(false);
    if (first.current) {
      first.current = false;
      return;
    }
    const heading = document.getElementById('page-title');
    heading?.focus();
  }, [location.pathname]);

  return (
    <div className="layout">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <button
          type="button"
          className="menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen((open) => !open)}
        >
          Menu
        </button>
        <span className="store-name">{store.data?.name ?? session?.storeSlug}</span>
        <span className="who muted">{session?.email}</span>
        <button type="button" onClick={() => signOut('You signed out.')}>
          Sign out
        </button>
      </header>
      <nav id="main-nav" aria-label="Console" className={menuOpen ? 'open' : undefined}>
        <ul>
          {NAV.map((item) => (
            <li key={item.to}>
              <NavLink to={item.to} end={item.end}>
                {item.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main">{children}</main>
    </div>
  );
}

function NotFound() {
  return (
    <>
      <PageHeader title="Page not found" />
      <p>
        Nothing is here. <NavLink to="/">Go to the home page</NavLink>.
      </p>
    </>
  );
}

export function App() {
  const { session } = useSession();
  if (!session) return <SignIn />;
  return (
    <Layout>
      <Suspense fallback={<Loading />}>
        <Routes>
          <Route path="/" element={<Home />} />
          <Route path="/products" element={<ProductsList />} />
          <Route path="/products/new" element={<ProductEdit />} />
          <Route path="/products/:id" element={<ProductEdit />} />
          <Route path="/collections" element={<CollectionsList />} />
          <Route path="/collections/new" element={<CollectionEdit />} />
          <Route path="/collections/:id" element={<CollectionEdit />} />
          <Route path="/content/regions" element={<Regions />} />
          <Route path="/content/regions/:key" element={<RegionBuilder />} />
          <Route path="/content/menus" element={<Menus />} />
          <Route path="/content/menus/:handle" element={<MenuEdit />} />
          <Route path="/content/pages" element={<Pages />} />
          <Route path="/content/pages/:slug" element={<PageEdit />} />
          <Route path="/orders" element={<OrdersList />} />
          <Route path="/orders/:id" element={<OrderDetail />} />
          <Route path="/draft-orders" element={<DraftOrdersList />} />
          <Route path="/draft-orders/new" element={<NewDraftOrder />} />
          <Route path="/draft-orders/:id" element={<DraftOrderPage />} />
          <Route path="/customers" element={<CustomersList />} />
          <Route path="/customers/privacy-log" element={<PrivacyLog />} />
          <Route path="/customers/:id" element={<CustomerDetail />} />
          <Route path="/pricing" element={<Pricing />} />
          <Route path="/tax-report" element={<TaxReport />} />
          <Route path="/shipping" element={<Shipping />} />
          <Route path="/customer-groups" element={<CustomerGroups />} />
          <Route path="/markets" element={<Markets />} />
          <Route path="/price-lists" element={<PriceLists />} />
          <Route path="/promotions" element={<Promotions />} />
          <Route path="/gift-cards" element={<GiftCards />} />
          <Route path="/gift-cards/:id" element={<GiftCardDetail />} />
          <Route path="/imports" element={<Imports />} />
          <Route path="/imports/:id" element={<ImportDetail />} />
          <Route path="/keys" element={<Keys />} />
          <Route path="/webhooks" element={<Webhooks />} />
          <Route path="/webhooks/:id" element={<WebhookDetail />} />
          <Route path="/email" element={<Email />} />
          <Route path="/staff" element={<Staff />} />
          <Route path="/themes" element={<Themes />} />
          <Route path="/apps" element={<Apps />} />
          <Route path="/settings" element={<Settings />} />
          <Route path="*" element={<NotFound />} />
        </Routes>
      </Suspense>
    </Layout>
  );
}
