// The shared styles first, so each screen's own CSS (imported by the screens) wins at equal specificity.
import './styles.css';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { StorefrontError } from '@storefront/client';
import { App } from './app.tsx';
import { SessionProvider } from './session.tsx';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // The client already retries transient failures; refusals (4xx) are final.
      retry: (count, error) => !(error instanceof StorefrontError && error.status < 500) && count < 1,
      refetchOnWindowFocus: false,
      staleTime: 5_000,
    },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <BrowserRouter basename="/admin">
        <SessionProvider>
          <App />
        </SessionProvider>
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>,
);
