/**
 * Themes (list, create, publish: one live theme per store, emits theme.published) and apps
 * (list, install with access scopes, emits app.installed).
 */
import { useState, type FormEvent } from 'react';
import { useApps, useInstallApp } from '../data/apps.ts';
import { useCreateTheme, usePublishTheme, useThemes, type Theme } from '../data/themes.ts';
import {
  ACTIONS,
  ConfirmButton,
  ErrorBanner,
  PageHeader,
  StatusBadge,
  SubmitCancel,
  TextAreaField,
  TextField,
  useCursorPager,
} from '../ui/components.tsx';
import { formatDateTime } from '../ui/dates.ts';
import { messageAt } from '../ui/problems.ts';
import { PagedTable } from '../ui/queries.tsx';
import { FocusedNotice, focusSoon, roleError } from './integrations-parts.tsx';

/** The settings textarea: empty, or a JSON object. */
function parseSettings(text: string): { value: Record<string, unknown> | undefined; error?: string } {
  if (text.trim() === '') return { value: undefined };
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return { value: undefined, error: 'Settings must be a JSON object, like {"primaryColor": "#1d4ed8"}.' };
    }
    return { value: value as Record<string, unknown> };
  } catch (error) {
    return { value: undefined, error: `Not valid JSON: ${(error as Error).message}` };
  }
}

function CreateTheme({ onCreated, onCancel }: { onCreated: (theme: Theme) => void; onCancel: () => void }) {
  const [name, setName] = useState('');
  const [settings, setSettings] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const parsed = parseSettings(settings);
  const nameError = name.trim() === '' ? 'Give the theme a name.' : undefined;
  const create = useCreateTheme({ onSuccess: onCreated });

  function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (nameError || parsed.error) return;
    create.mutate({ name: name.trim(), ...(parsed.value ? { settings: parsed.value } : {}) });
  }

  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="create-theme-title">
      <h2 id="create-theme-title">Create a theme</h2>
      <TextField
        label="Theme name"
        name="theme-name"
        autoFocus
        value={name}
        maxLength={200}
        onChange={(event) => setName(event.target.value)}
        required
        error={(submitted ? nameError : undefined) ?? messageAt(create.error, '/name')}
      />
      <TextAreaField
        label="Settings (JSON, optional)"
        name="theme-settings"
        value={settings}
        onChange={(event) => setSettings(event.target.value)}
        spellCheck={false}
        rows={5}
        placeholder={'{\n  "primaryColor": "#1d4ed8"\n}'}
        hint="Free-form settings your shop’s front end reads from the live theme (at most 64 KiB)."
        error={(submitted ? parsed.error : undefined) ?? messageAt(create.error, '/settings')}
      />
      <ErrorBanner error={create.error} />
      <SubmitCancel label="Create theme" busyLabel="Creating…" busy={create.isPending} onCancel={onCancel} />
    </form>
  );
}

export function Themes() {
  const pager = useCursorPager();
  const [creating, setCreating] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const themes = useThemes(pager.cursor);
  const publish = usePublishTheme({
    onDone: (_theme, live) => setMessage(`“${live.name}” is now your live theme.`),
  });
  const live = themes.data?.items.find((theme) => theme.live);

  return (
    <>
      <PageHeader
        title="Themes"
        actions={
          creating || themes.isError ? null : (
            <button
              type="button"
              id="create-theme-button"
              className="primary"
              onClick={() => {
                setCreating(true);
                setMessage(null);
              }}
            >
              Create theme
            </button>
          )
        }
      >
        <p className="muted">
          The live theme’s settings are what your shop’s front end reads. Publishing one replaces the live
          theme.
        </p>
      </PageHeader>
      <FocusedNotice message={message} />
      {creating ? (
        <CreateTheme
          onCreated={(theme) => {
            setCreating(false);
            setMessage(`“${theme.name}” is created. Publish it to make it live.`);
          }}
          onCancel={() => {
            setCreating(false);
            focusSoon('#create-theme-button');
          }}
        />
      ) : null}
      <ErrorBanner error={publish.error} />
      <PagedTable
        query={themes}
        pager={pager}
        loading="Loading themes…"
        error={roleError('owners and admins', 'manage themes')}
        empty={<p>No themes yet. Create one, then publish it.</p>}
        wrap="contained"
        caption="Themes"
        columns={['Name', 'Status', 'Settings', 'Created', ACTIONS]}
      >
        {(theme) => {
          const keys = Object.keys(theme.settings);
          return (
            <tr key={theme.id}>
              <td>{theme.name}</td>
              <td>
                {theme.live ? (
                  <>
                    <StatusBadge status="published" />
                    <br />
                    <span className="muted">since {formatDateTime(theme.publishedAt)}</span>
                  </>
                ) : (
                  <StatusBadge status="draft" />
                )}
              </td>
              <td>
                {keys.length === 0 ? (
                  <span className="muted">None</span>
                ) : (
                  <details>
                    <summary>
                      {keys.length} {keys.length === 1 ? 'setting' : 'settings'}
                    </summary>
                    <pre>{JSON.stringify(theme.settings, null, 2)}</pre>
                  </details>
                )}
              </td>
              <td>{formatDateTime(theme.createdAt)}</td>
              <td>
                {theme.live ? null : (
                  <ConfirmButton
                    danger={false}
                    title={`Publish “${theme.name}”?`}
                    body={
                      <p>
                        {live
                          ? `It replaces “${live.name}” as the live theme at once.`
                          : 'It becomes the live theme at once.'}{' '}
                        Webhook subscribers get <code>theme.published</code>.
                      </p>
                    }
                    confirmLabel="Publish theme"
                    onConfirm={() => {
                      setMessage(null);
                      publish.mutate(theme);
                    }}
                    disabled={publish.isPending}
                  >
                    <span aria-hidden="true">Publish</span>
                    <span className="visually-hidden">Publish {theme.name}</span>
                  </ConfirmButton>
                )}
              </td>
            </tr>
          );
        }}
      </PagedTable>
    </>
  );
}

const SCOPE = /^(read|write)_[a-z]+(_[a-z]+)*$/;

function InstallApp({
  onInstalled,
  onCancel,
}: {
  onInstalled: (name: string) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState('');
  const [scopesText, setScopesText] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const scopes = [...new Set(scopesText.split(/[\s,]+/).filter(Boolean))];
  const bad = scopes.filter((scope) => !SCOPE.test(scope));
  const errors = {
    name: name.trim() === '' ? 'Enter the app’s name.' : undefined,
    scopes:
      bad.length > 0
        ? `Not a scope: ${bad.join(', ')}. Scopes look like read_products or write_orders.`
        : scopes.length > 50
          ? 'At most 50 scopes.'
          : undefined,
  };
  const install = useInstallApp({ onSuccess: (app) => onInstalled(app.name) });

  function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (errors.name || errors.scopes) return;
    install.mutate({ name: name.trim(), scopes });
  }

  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="install-app-title">
      <h2 id="install-app-title">Install an app</h2>
      <TextField
        label="App name"
        name="app-name"
        autoFocus
        value={name}
        maxLength={200}
        onChange={(event) => setName(event.target.value)}
        required
        error={(submitted ? errors.name : undefined) ?? messageAt(install.error, '/name')}
      />
      <TextAreaField
        label="Access scopes"
        name="app-scopes"
        value={scopesText}
        onChange={(event) => setScopesText(event.target.value)}
        spellCheck={false}
        autoCapitalize="off"
        rows={3}
        placeholder="read_products, write_orders"
        hint="What the app may read or change, separated by commas or new lines: read_products, write_orders…"
        error={(submitted ? errors.scopes : undefined) ?? messageAt(install.error, '/scopes')}
      />
      <ErrorBanner error={install.error} />
      <SubmitCancel
        label="Install app"
        busyLabel="Installing…"
        busy={install.isPending}
        onCancel={onCancel}
      />
    </form>
  );
}

export function Apps() {
  const pager = useCursorPager();
  const [installing, setInstalling] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const apps = useApps(pager.cursor);

  return (
    <>
      <PageHeader
        title="Apps"
        actions={
          installing || apps.isError ? null : (
            <button
              type="button"
              id="install-app-button"
              className="primary"
              onClick={() => {
                setInstalling(true);
                setMessage(null);
              }}
            >
              Install app
            </button>
          )
        }
      >
        <p className="muted">Apps installed in your store, with the access each was granted.</p>
      </PageHeader>
      <FocusedNotice message={message} />
      {installing ? (
        <InstallApp
          onInstalled={(name) => {
            setInstalling(false);
            setMessage(`“${name}” is installed.`);
          }}
          onCancel={() => {
            setInstalling(false);
            focusSoon('#install-app-button');
          }}
        />
      ) : null}
      <PagedTable
        query={apps}
        pager={pager}
        loading="Loading apps…"
        error={roleError('owners and admins', 'manage apps')}
        empty={<p>No apps installed.</p>}
        wrap="contained"
        caption="Installed apps"
        columns={['Name', 'Access scopes', 'Installed']}
      >
        {(app) => (
          <tr key={app.id}>
            <td>{app.name}</td>
            <td>
              {app.scopes.length === 0 ? (
                <span className="muted">None</span>
              ) : (
                <ul className="plain-list">
                  {app.scopes.map((scope) => (
                    <li key={scope}>
                      <code>{scope}</code>
                    </li>
                  ))}
                </ul>
              )}
            </td>
            <td>{formatDateTime(app.installedAt)}</td>
          </tr>
        )}
      </PagedTable>
    </>
  );
}
