import { useState, type FormEvent } from 'react';
import type { OpsActionResult } from '../../contract/ops-api.ts';
import ActionDialog from './ActionDialog.tsx';
import { opsClient } from './ops-api.ts';
import type { AccountAction } from './ops-client.ts';
import { useOps } from './ops-context.ts';
import { Fact, Load, SearchField, Section } from './OpsParts.tsx';
import { OrderTable } from './OrdersScreen.tsx';
import { OutcomeNotice, type Outcome } from './OutcomeNotice.tsx';
import { useLoad } from './use-load.ts';

/** Accounts (issue 30 item 6): one buyer by e-mail or uid, their state and orders; block, unblock, delete (admin). */
export default function AccountsScreen({ q }: { q: string }) {
  const { m, go } = useOps();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    go({ name: 'accounts', q: String(new FormData(event.currentTarget).get('q') ?? '').trim() });
  }

  return (
    <>
      <form key={q} onSubmit={submit} role="search" className="flex flex-wrap items-end gap-3 rounded-lg border border-line p-3">
        <SearchField label={m.accounts.search} defaultValue={q} required className="grow" />
        <button type="submit" className="rounded-md bg-brand px-4 py-2 font-semibold text-brand-ink">
          {m.accounts.submit}
        </button>
      </form>
      {q && <Account q={q} />}
    </>
  );
}

function Account({ q }: { q: string }) {
  const { m, role } = useOps();
  const [state, reload] = useLoad(() => opsClient.account(q), q);
  const [outcome, setOutcome] = useState<Outcome>();
  const act = (uid: string, action: AccountAction) => (body: Record<string, unknown>) =>
    opsClient.accountAction(uid, action, body as never);
  const done = (result: OpsActionResult, label: string) => {
    setOutcome({ label, result });
    reload();
  };
  return (
    <div className="mt-4">
      <OutcomeNotice outcome={outcome} />
      <Load state={state} loading={m.accounts.loading} retry={reload}>
        {(account) => (
          <div className="flex flex-col gap-4" data-account={account.uid}>
            <Section
              title={account.email ?? account.uid}
              actions={
                role === 'admin' && account.account !== 'deleted' ? (
                  <div className="flex flex-wrap gap-2">
                    {account.account === 'blocked' ? (
                      <ActionDialog name="unblock" send={act(account.uid, 'unblock')} onDone={done} />
                    ) : (
                      <ActionDialog name="block" danger send={act(account.uid, 'block')} onDone={done} />
                    )}
                    <ActionDialog name="delete" danger send={act(account.uid, 'delete')} onDone={done} />
                  </div>
                ) : undefined
              }
            >
              <dl className="text-sm">
                <Fact term={m.order.uid}>{account.uid}</Fact>
                <Fact term={m.order.email}>{account.email ?? m.order.none}</Fact>
                <Fact term={m.accounts.state}>
                  <span data-account-state={account.account}>{m.order[`account_${account.account}`]}</span>
                </Fact>
              </dl>
            </Section>
            <Section title={m.accounts.orders}>
              {account.orders.length ? <OrderTable orders={account.orders} /> : <p className="text-sm">{m.accounts.noOrders}</p>}
            </Section>
          </div>
        )}
      </Load>
    </div>
  );
}
