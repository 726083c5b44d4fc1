import { Link } from '../router.tsx';
import { PageTitle } from '../ui.tsx';

export function NotFound({ what = 'page' }: { what?: string }) {
  return (
    <section class="not-found">
      <PageTitle title="Not found">Not found</PageTitle>
      <p>This {what} does not exist, or is no longer for sale.</p>
      <p>
        <Link to="/">Back to the shop</Link>
      </p>
    </section>
  );
}
