/**
 * A small router: the History API, one listener, and a document-wide click handler that
 * keeps in-app links (including those inside rendered content blocks and menus) in the app. Paths
 * inside the app are written without the shop's prefix (`/products/…`); `href()` adds it. It counts
 * route changes, so that a page's heading takes the focus on navigation and never on a data update.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

let basePath = '';
const listeners = new Set<() => void>();
const notify = () => listeners.forEach((listener) => listener());

/** Route changes since the shop was opened: 0 on the page it was opened at. */
let routeChanges = 0;
/** Where the focus was when the route last changed: the link followed, the box searched from. */
let focusAtRouteChange: Element | null = null;
let routePath = '';

function changeRoute(): void {
  routeChanges++;
  focusAtRouteChange = document.activeElement;
}

/**
 * Whether the focus is where the last route change left it (or nowhere: the page that had it is
 * gone), so the new page's heading may take it; false once the shopper has put it elsewhere, such
 * as the search box while the page loads.
 */
export function focusIsWhereRouteChangeLeftIt(): boolean {
  const active = document.activeElement;
  return active === null || active === document.body || active === focusAtRouteChange;
}

export function startRouter(base: string): void {
  basePath = base;
  routePath = current().path;
  // Back and forward change the route when they change the path (not a search's filters).
  window.addEventListener('popstate', () => {
    const { path } = current();
    if (path !== routePath) changeRoute();
    routePath = path;
    notify();
  });
  document.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = (event.target as Element | null)?.closest?.('a');
    if (!anchor || anchor.target || anchor.hasAttribute('download')) return;
    const url = new URL(anchor.href, window.location.href);
    if (url.origin !== window.location.origin) return;
    if (url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) return;
    event.preventDefault();
    navigate(url.pathname.slice(basePath.length) + url.search + url.hash);
  });
}

/**
 * The address of an app path, or of a URL from content: a path from a menu or a block
 * (`/collections/summer`) is a path of this shop; absolute URLs are left as they are.
 */
export function href(path: string): string {
  return path.startsWith('/') && !path.startsWith('//') ? basePath + path : path;
}

/**
 * Goes to an app path: a new history entry, or the current one replaced (`replace`). A new page
 * starts at the top; `scroll: false` keeps the position (a filter or sort changed in place). A new
 * entry that starts at the top is a route change; a replaced entry (a variant chosen, an address
 * corrected) or one kept in place is the same page.
 */
export function navigate(
  path: string,
  { replace = false, scroll = true }: { replace?: boolean; scroll?: boolean } = {},
): void {
  const target = href(path);
  if (replace) window.history.replaceState(null, '', target);
  else window.history.pushState(null, '', target);
  if (!replace && scroll) changeRoute();
  routePath = current().path;
  if (scroll) window.scrollTo(0, 0);
  notify();
}

export interface Location {
  /** The path inside the app, e.g. `/products/blue-mug`. */
  path: string;
  query: URLSearchParams;
  /** How many route changes led here (0: the page the shop was opened at). */
  route: number;
}

function current(): Location {
  const { pathname, search } = window.location;
  const inside = pathname.startsWith(basePath) ? pathname.slice(basePath.length) : pathname;
  return { path: inside === '' ? '/' : inside, query: new URLSearchParams(search), route: routeChanges };
}

export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => setLocation(current());
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return location;
}

/** Matches `/products/:handle` against a path; the decoded parameters, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const have = path.replace(/\/$/, '').split('/');
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const part = want[i]!;
    if (part.startsWith(':')) {
      try {
        params[part.slice(1)] = decodeURIComponent(have[i]!);
      } catch {
        return null;
      }
    } else if (part !== have[i]) return null;
  }
  return params;
}

export function Link({
  to,
  children,
  class: className,
  'aria-label': label,
}: {
  to: string;
  children: ComponentChildren;
  class?: string;
  'aria-label'?: string;
}) {
  return (
    <a href={href(to)} class={className} aria-label={label}>
      {children}
    </a>
  );
}
