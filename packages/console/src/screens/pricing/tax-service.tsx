/**
 * The Pricing screen's tax service (decision tax-service): the https URL that previews and checkouts
 * ask for the tax, whether it is asked, its signing secret shown once (on creation and on rotation,
 * with a copy button), a new secret, and removing the service (the built-in rates apply again).
 */
import { useId, useState, type FormEvent } from 'react';
import {
  useDeleteTaxService,
  useRotateTaxServiceSecret,
  useSaveTaxService,
  useTaxService,
  type TaxService,
} from '../../data/tax.ts';
import {
  CheckboxField,
  ConfirmButton,
  ErrorBanner,
  Notice,
  SecretOnce,
  TextField,
} from '../../ui/components.tsx';
import { messageAt } from '../../ui/problems.ts';
import { QueryView } from '../../ui/queries.tsx';

function ServiceForm({
  service,
  onSaved,
}: {
  service: TaxService | null;
  onSaved: (message: string, secret: string | null) => void;
}) {
  const titleId = useId();
  const [url, setUrl] = useState(service?.url ?? '');
  const [active, setActive] = useState(service?.active ?? true);
  const [problem, setProblem] = useState<string | null>(null);
  const save = useSaveTaxService((saved) =>
    onSaved('The tax service was saved.', 'secret' in saved ? saved.secret : null),
  );

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!/^https?:\/\/\S+$/.test(url.trim())) {
      setProblem('Enter the service’s https URL, like https://tax.example.com/quote.');
      return;
    }
    setProblem(null);
    save.mutate({ url: url.trim(), active });
  }

  return (
    <form
      className="panel orders-panel orders-form-panel"
      onSubmit={submit}
      noValidate
      aria-labelledby={titleId}
    >
      <h3 id={titleId}>{service ? 'Change the tax service' : 'Connect a tax service'}</h3>
      <TextField
        label="Service URL"
        type="url"
        autoComplete="off"
        hint="Each quote is posted there, signed like a webhook."
        value={url}
        error={problem ?? messageAt(save.error, '/url')}
        onChange={(event) => {
          setUrl(event.target.value);
          setProblem(null);
        }}
      />
      <CheckboxField
        label="Active: ask it for every quote"
        hint="Off: the built-in rates apply. When the service fails, the cart shows an estimate and checkout waits."
        checked={active}
        onChange={(event) => setActive(event.target.checked)}
      />
      {save.isError && !messageAt(save.error, '/url') ? <ErrorBanner error={save.error} /> : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save tax service'}
        </button>
      </div>
    </form>
  );
}

export function TaxServiceSection() {
  const service = useTaxService();
  const [secret, setSecret] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [formKey, setFormKey] = useState(0);
  const rotate = useRotateTaxServiceSecret((rotated) => {
    setNotice('A new signing secret was made; the old one no longer signs.');
    setSecret(rotated.secret);
  });
  const remove = useDeleteTaxService({
    onDone: () => {
      setSecret(null);
      setNotice('The tax service was removed: the built-in rates apply.');
      setFormKey((k) => k + 1);
    },
  });

  return (
    <section aria-labelledby="tax-service-title">
      <h2 id="tax-service-title">Tax service</h2>
      <p className="muted">
        Hand tax to an outside service (a TaxJar or Avalara adapter, or your own): it answers each quote with
        the tax of every line and of shipping.
      </p>
      {notice ? <Notice tone="success">{notice}</Notice> : null}
      {secret ? <SecretOnce label="Signing secret" value={secret} onDone={() => setSecret(null)} /> : null}
      <ErrorBanner error={rotate.error ?? remove.error} />
      <QueryView query={service} loading="Loading the tax service…" keepData>
        {(data) => (
          <>
            {data ? (
              <div className="actions">
                <span>
                  {data.active ? 'Asked for every quote' : 'Inactive'}: <code>{data.url}</code>
                </span>
                <ConfirmButton
                  title="Make a new signing secret?"
                  body={<p>The service must be given the new secret: quotes are signed with it at once.</p>}
                  confirmLabel="Make a new secret"
                  danger={false}
                  disabled={rotate.isPending}
                  onConfirm={() => rotate.mutate()}
                >
                  Rotate secret
                </ConfirmButton>
                <ConfirmButton
                  title="Remove the tax service?"
                  body={<p>Previews and checkouts use the built-in rates again.</p>}
                  confirmLabel="Remove service"
                  disabled={remove.isPending}
                  onConfirm={() => remove.mutate()}
                >
                  Remove service
                </ConfirmButton>
              </div>
            ) : null}
            <ServiceForm
              key={`${formKey}-${data ? 'set' : 'none'}`}
              service={data}
              onSaved={(message, shown) => {
                setNotice(message);
                if (shown) setSecret(shown);
              }}
            />
          </>
        )}
      </QueryView>
    </section>
  );
}
