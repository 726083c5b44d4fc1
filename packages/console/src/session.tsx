/**
 * The staff session: the token from the emailed-code sign-in, kept in localStorage (so a merchant
 * stays signed in across tabs until the session expires: sliding 12 h within 7 days, decision `staff-sessions`),
 * and the Admin API client made with it. Any 401 ends the session and returns to the sign-in page
 * with a message.
 */
import { createAdminClient, type AdminClient } from '@storefront/client';
import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';

const STORAGE_KEY = 'storefront.console.session';

export interface StoredSession {
  token: string;
  storeSlug: string;
  email: string;
  expiresAt: string;
}

interface SessionContextValue {
  session: StoredSession | null;
  /** Why the last session ended (expired, signed out), shown on the sign-in page. */
  notice: string | null;
  admin: AdminClient | null;
  signIn: (session: StoredSession) => void;
  signOut: (notice?: string) => void;
}

const SessionContext = createContext<SessionContextValue | null>(null);

function load(): StoredSession | null {
  try {
    const raw = localStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const session = JSON.parse(raw) as StoredSession;
    if (typeof session.token !== 'string' || Date.parse(session.expiresAt) <= Date.now()) {
      localStorage.removeItem(STORAGE_KEY);
      return null;
    }
    return session;
  } catch {
    return null;
  }
}

export const EXPIRED_NOTICE = 'Your session has expired. Sign in again to continue.';

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [session, setSession] = useState<StoredSession | null>(load);
  const [notice, setNotice] = useState<string | null>(null);

  const signOut = useCallback(
    (message?: string) => {
      localStorage.removeItem(STORAGE_KEY);
      setSession(null);
      setNotice(message ?? null);
      queryClient.clear();
    },
    [queryClient],
  );

  const signIn = useCallback((next: StoredSession) => {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(next));
    setNotice(null);
    setSession(next);
  }, []);

  const admin = useMemo(() => {
    if (!session) return null;
    return createAdminClient({
      baseUrl: location.origin,
      token: session.token,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (response.status === 401) queueMicrotask(() => signOut(EXPIRED_NOTICE));
        return response;
      },
    });
  }, [session, signOut]);

  const value = useMemo(
    () => ({ session, notice, admin, signIn, signOut }),
    [session, notice, admin, signIn, signOut],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}

/** The Admin API client of the signed-in staff member (screens render only when signed in). */
export function useAdmin(): AdminClient {
  const { admin } = useSession();
  if (!admin) throw new Error('useAdmin without a session');
  return admin;
}
