/**
 * The Pricing screen's tax classes (decision tax-classes): `standard`, which every store has, and
 * the store's own (`reduced`, `zero`…), each with a rate per area on the rates below. A class in use
 * by a product, a variant or a shipping method cannot be deleted: the server's 409 says what uses it.
 */
import { useId, useState, type FormEvent } from 'react';
import { useCreateTaxClass, useDeleteTaxClass, useTaxClasses } from '../../data/tax.ts';
import { ACTIONS, ConfirmButton, DataTable, ErrorBanner, Notice, TextField } from '../../ui/components.tsx';
import { messageAt } from '../../ui/problems.ts';
import { QueryView } from '../../ui/queries.tsx';

const CODE = /^[a-z0-9_-]{1,32}$/;

function ClassForm({ onCreated }: { onCreated: (name: string) => void }) {
  const titleId = useId();
  const [code, setCode] = useState('');
  const [name, setName] = useState('');
  const [problems, setProblems] = useState<{ code?: string; name?: string }>({});
  const create = useCreateTaxClass((created) => {
    setCode('');
    setName('');
    onCreated(created.name);
  });
  const fieldLevel = ['/code', '/name'].some((pointer) => messageAt(create.error, pointer));

  function submit(event: FormEvent) {
    event.preventDefault();
    const found: typeof problems = {};
    if (!CODE.test(code)) found.code = 'Up to 32 lower-case letters, digits, - or _, like “reduced”.';
    if (name.trim() === '') found.name = 'Enter a name, like “Reduced rate”.';
    setProblems(found);
    if (Object.keys(found).length === 0) create.mutate({ code, name: name.trim() });
  }

  return (
    <form
      className="panel orders-panel orders-form-panel"
      onSubmit={submit}
      noValidate
      aria-labelledby={titleId}
    >
      <h3 id={titleId}>Add a tax class</h3>
      <div className="orders-form-grid">
        <TextField
          label="Class code"
          hint="Used in the API and on products, e.g. reduced."
          autoComplete="off"
          value={code}
          error={problems.code ?? messageAt(create.error, '/code')}
          onChange={(event) => {
            setCode(event.target.value);
            setProblems(({ code: _, ...rest }) => rest);
          }}
        />
        <TextField
          label="Name"
          autoComplete="off"
          value={name}
          error={problems.name ?? messageAt(create.error, '/name')}
          onChange={(event) => {
            setName(event.target.value);
            setProblems(({ name: _, ...rest }) => rest);
          }}
        />
      </div>
      {create.isError && !fieldLevel ? <ErrorBanner error={create.error} /> : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? 'Adding…' : 'Add class'}
        </button>
      </div>
    </form>
  );
}

export function TaxClasses() {
  const classes = useTaxClasses();
  const [notice, setNotice] = useState<string | null>(null);
  const remove = useDeleteTaxClass({ onDone: (code) => setNotice(`The tax class ${code} was deleted.`) });
  return (
    <section aria-labelledby="tax-classes-title">
      <h2 id="tax-classes-title">Tax classes</h2>
      <p className="muted">
        Goods taxed at another rate than the standard one (food, books, services) get a class of their own;
        each area below gives it its rate. A class without a rate in an area is taxed at the standard rate.
      </p>
      {notice ? <Notice tone="success">{notice}</Notice> : null}
      <ErrorBanner error={remove.error} />
      <QueryView query={classes} loading="Loading tax classes…" keepData>
        {(data) => (
          <DataTable
            wrap="orders-table-wrap"
            className="row-headed"
            caption="Tax classes"
            columns={['Code', 'Name', ACTIONS]}
          >
            {data.items.map((taxClass) => (
              <tr key={taxClass.code}>
                <th scope="row">
                  <code>{taxClass.code}</code>
                </th>
                <td>{taxClass.name}</td>
                <td>
                  {taxClass.code === 'standard' ? (
                    <span className="muted">Always there</span>
                  ) : (
                    <ConfirmButton
                      title={`Delete the tax class ${taxClass.code}?`}
                      body={<p>Its rates in every area go with it.</p>}
                      confirmLabel="Delete class"
                      disabled={remove.isPending}
                      onConfirm={() => {
                        setNotice(null);
                        remove.mutate(taxClass.code);
                      }}
                    >
                      Delete<span className="visually-hidden"> the tax class {taxClass.code}</span>
                    </ConfirmButton>
                  )}
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </QueryView>
      <ClassForm
        onCreated={(name) => {
          remove.reset();
          setNotice(`The tax class “${name}” was added.`);
        }}
      />
    </section>
  );
}
