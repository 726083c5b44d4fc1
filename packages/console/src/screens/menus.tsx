/** Menus: named lists of links (main, footer) with their items' labels and URLs, reordered with buttons. */
import { urlProblem } from '@storefront/blocks';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  useCreateMenu,
  useDeleteMenu,
  useFindMenu,
  useMenu,
  useMenus,
  useSaveMenu,
  type AdminMenu,
} from '../data/menus.ts';
import { formatDateTime } from '../ui/dates.ts';
import {
  ACTIONS,
  ConfirmButton,
  Empty,
  ErrorBanner,
  Loading,
  Notice,
  PageHeader,
  TextField,
  useCursorPager,
} from '../ui/components.tsx';
import { fieldErrors, isStatus } from '../ui/problems.ts';
import { readingForForm } from '../ui/queries.tsx';
import {
  Announcer,
  ContentList,
  CreateByHandle,
  DeleteCell,
  LeaveGuard,
  sameJson,
} from './content-parts.tsx';

const MAX_ITEMS = 100;

export function Menus() {
  const pager = useCursorPager();
  const list = useMenus(pager.cursor);
  const findMenu = useFindMenu();
  const create = useCreateMenu();
  const remove = useDeleteMenu({
    notice: (handle) => `Menu “${handle}” deleted.`,
  });

  return (
    <>
      <PageHeader title="Menus">
        <p className="muted">Lists of links your shop shows, such as the main navigation or the footer.</p>
      </PageHeader>

      <section aria-labelledby="new-menu">
        <h2 id="new-menu">New menu</h2>
        <CreateByHandle
          label="Menu handle"
          hint="How your theme asks for it, e.g. main or footer: lower-case letters, digits and hyphens."
          submitLabel="Create menu"
          exists={findMenu}
          create={(handle) => create.mutateAsync(handle)}
          openPath={(handle) => `/content/menus/${handle}`}
        />
      </section>

      <ContentList
        id="all-menus"
        title="All menus"
        query={list}
        pager={pager}
        remove={remove}
        loading="Loading menus…"
        empty={<p>No menus yet. Create one above, for example “main”.</p>}
        caption="Menus"
        columns={['Handle', 'Items', { label: 'Links', num: true }, 'Updated', ACTIONS]}
      >
        {(menu) => (
          <tr key={menu.id}>
            <td>
              <Link to={`/content/menus/${menu.handle}`}>{menu.handle}</Link>
            </td>
            <td className="muted clip">
              {menu.items.length > 0 ? menu.items.map((i) => i.label).join(', ') : '(empty)'}
            </td>
            <td className="num">{menu.items.length}</td>
            <td>{formatDateTime(menu.updatedAt)}</td>
            <DeleteCell
              name={menu.handle}
              value={menu.handle}
              title={`Delete the menu “${menu.handle}”?`}
              body={<p>Your shop stops showing it at once. This cannot be undone.</p>}
              confirmLabel="Delete menu"
              remove={remove}
            />
          </tr>
        )}
      </ContentList>
    </>
  );
}

export function MenuEdit() {
  const { handle = '' } = useParams();
  const menu = useMenu(handle);
  const title = `Menu “${handle}”`;
  if (menu.isPending || readingForForm(menu))
    return (
      <>
        <PageHeader title={title} />
        <Loading label="Loading the menu…" />
      </>
    );
  if (menu.isError)
    return (
      <>
        <PageHeader title={title} />
        {isStatus(menu.error, 404) ? (
          <Empty>
            <p>There is no menu with the handle “{handle}”.</p>
            <Link to="/content/menus">Back to menus</Link>
          </Empty>
        ) : (
          <ErrorBanner error={menu.error} onRetry={() => void menu.refetch()} />
        )}
      </>
    );
  return <MenuEditor key={menu.data.id} initial={menu.data} title={title} />;
}

interface Item {
  key: number;
  label: string;
  url: string;
}
type ItemField = 'label' | 'url';

function itemProblem(item: Item, field: ItemField): string | undefined {
  if (field === 'label') {
    if (item.label.trim() === '') return 'Enter a label.';
    if ([...item.label].length > 200) return 'Use at most 200 characters.';
    return undefined;
  }
  const problem = urlProblem(item.url, 'menu');
  return problem ? `The URL ${problem}.` : undefined;
}

function MenuEditor({ initial, title }: { initial: AdminMenu; title: string }) {
  const navigate = useNavigate();
  const handle = initial.handle;
  const nextKey = useRef(0);
  const toItems = (items: { label: string; url: string }[]): Item[] =>
    items.map((item) => ({ key: nextKey.current++, ...item }));
  const [menu, setMenu] = useState(initial);
  const [items, setItems] = useState<Item[]>(() => toItems(initial.items));
  const [touched, setTouched] = useState<Set<string>>(new Set());
  const [showAll, setShowAll] = useState(false);
  const [server, setServer] = useState<Map<string, string>>(new Map());
  const [failure, setFailure] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const [focusAfter, setFocusAfter] = useState<string | null>(null);

  const dirty = useMemo(
    () =>
      !sameJson(
        items.map(({ label, url }) => ({ label, url })),
        menu.items,
      ),
    [items, menu],
  );
  useEffect(() => {
    if (focusAfter === null) return;
    document.querySelector<HTMLElement>(focusAfter)?.focus();
    setFocusAfter(null);
  }, [focusAfter]);

  const problems = items.flatMap((item) =>
    (['label', 'url'] as const).flatMap((field) => {
      const problem = itemProblem(item, field);
      return problem ? [{ item, field, problem }] : [];
    }),
  );
  const errorFor = (item: Item, field: ItemField) => {
    const id = `${item.key}/${field}`;
    return server.get(id) ?? (showAll || touched.has(id) ? itemProblem(item, field) : undefined);
  };

  const change = (key: number, field: ItemField, value: string) => {
    setItems((list) => list.map((item) => (item.key === key ? { ...item, [field]: value } : item)));
    setServer((map) => {
      const copy = new Map(map);
      copy.delete(`${key}/${field}`);
      return copy;
    });
    setNotice(null);
  };
  const moveItem = (index: number, by: -1 | 1, action: string) => {
    const to = index + by;
    if (to < 0 || to >= items.length) return;
    const copy = [...items];
    const [item] = copy.splice(index, 1);
    copy.splice(to, 0, item!);
    setItems(copy);
    setFocusAfter(`[data-item-key="${item!.key}"] [data-action="${action}"]`);
    setAnnouncement(`Moved “${item!.label || 'item'}” to position ${to + 1} of ${copy.length}.`);
  };
  const removeItem = (index: number) => {
    const item = items[index]!;
    setItems(items.filter((_, i) => i !== index));
    setAnnouncement(`Removed “${item.label || 'item'}”.`);
    setFocusAfter('#add-item');
  };
  const addItem = () => {
    const item = { key: nextKey.current++, label: '', url: '' };
    setItems([...items, item]);
    setFocusAfter(`[data-item-key="${item.key}"] input`);
  };

  const save = useSaveMenu<Item>(handle, {
    onSuccess: (data) => {
      setMenu(data);
      setItems((list) => list.map((item, i) => ({ ...item, label: data.items[i]?.label ?? item.label })));
      setServer(new Map());
      setFailure(null);
      setNotice('Menu saved. Your shop shows it now.');
    },
    onError: (error, sent) => {
      setFailure(error);
      const map = new Map<string, string>();
      for (const { pointer, detail } of fieldErrors(error)) {
        const match = /^\/items\/(\d+)\/(label|url)$/.exec(pointer);
        const item = match ? sent[Number(match[1])] : undefined;
        if (item && match)
          map.set(`${item.key}/${match[2]}`, `The ${match[2] === 'url' ? 'URL' : 'label'} ${detail}.`);
      }
      setServer(map);
    },
  });
  const remove = useDeleteMenu({ onDone: () => void navigate('/content/menus') });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setShowAll(true);
    setNotice(null);
    if (problems.length > 0) {
      const first = problems[0]!;
      document
        .querySelector<HTMLElement>(`[data-item-key="${first.item.key}"] [data-field="${first.field}"]`)
        ?.focus();
      return;
    }
    save.mutate(items);
  };

  return (
    <>
      <PageHeader
        title={title}
        actions={
          <ConfirmButton
            title={`Delete the menu “${handle}”?`}
            body={<p>Your shop stops showing it at once. This cannot be undone.</p>}
            confirmLabel="Delete menu"
            onConfirm={() => remove.mutate(handle)}
            disabled={remove.isPending}
          >
            Delete menu
          </ConfirmButton>
        }
      >
        <p className="muted">
          {dirty ? <span className="badge badge-failed">Unsaved changes</span> : null} Updated{' '}
          {formatDateTime(menu.updatedAt)} · <Link to="/content/menus">All menus</Link>
        </p>
      </PageHeader>
      <LeaveGuard when={dirty} what="changes to this menu" />
      <Announcer message={announcement} />
      {notice ? <Notice tone="success">{notice}</Notice> : null}
      <ErrorBanner error={failure ?? remove.error} />

      <form className="menu-editor" onSubmit={submit} noValidate>
        {items.length === 0 ? (
          <Empty>
            <p>This menu has no items yet.</p>
          </Empty>
        ) : (
          <ol className="menu-items">
            {items.map((item, index) => (
              <li key={item.key} data-item-key={item.key}>
                <fieldset className="menu-item">
                  <legend>Item {index + 1}</legend>
                  <div className="menu-item-fields">
                    <TextField
                      label="Label"
                      value={item.label}
                      data-field="label"
                      maxLength={200}
                      error={errorFor(item, 'label')}
                      onChange={(e) => change(item.key, 'label', e.target.value)}
                      onBlur={() => setTouched((t) => new Set(t).add(`${item.key}/label`))}
                    />
                    <TextField
                      label="URL"
                      hint="A page of your shop (/collections/sale) or an https:// address."
                      value={item.url}
                      data-field="url"
                      inputMode="url"
                      spellCheck={false}
                      error={errorFor(item, 'url')}
                      onChange={(e) => change(item.key, 'url', e.target.value)}
                      onBlur={() => setTouched((t) => new Set(t).add(`${item.key}/url`))}
                    />
                  </div>
                  <div className="actions">
                    <button
                      type="button"
                      data-action="up"
                      aria-disabled={index === 0 || undefined}
                      onClick={() => moveItem(index, -1, 'up')}
                    >
                      Move up
                    </button>
                    <button
                      type="button"
                      data-action="down"
                      aria-disabled={index === items.length - 1 || undefined}
                      onClick={() => moveItem(index, 1, 'down')}
                    >
                      Move down
                    </button>
                    <button type="button" className="danger" onClick={() => removeItem(index)}>
                      Remove item
                    </button>
                  </div>
                </fieldset>
              </li>
            ))}
          </ol>
        )}
        <div className="actions">
          <button type="button" id="add-item" onClick={addItem} disabled={items.length >= MAX_ITEMS}>
            Add item
          </button>
          <button type="submit" className="primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save menu'}
          </button>
        </div>
        {items.length >= MAX_ITEMS ? <p className="hint">A menu holds at most {MAX_ITEMS} items.</p> : null}
      </form>
    </>
  );
}
