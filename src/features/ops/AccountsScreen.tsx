import { useId, useState, type FormEvent } from 'react';
import type { OpsActionResult } from '../../contract/ops-api.ts';
import ActionDialog from './ActionDialog.tsx';
import { opsClient } from './ops-api.ts';
import type { AccountAction } from './ops-client.ts';
import { useOps } from './ops-context.ts';
import { Fact, Load, Section } from './OpsParts.tsx';
import { OrderTable } from './OrdersScreen.tsx';
import { OutcomeNotice, type Outcome } from './OutcomeNotice.tsx';
import { useLoad } from './use-load.ts';

/** Accounts (issue 30 item 6): one buyer by e-mail or uid, their state and orders; block, unblock, delete (admin). */
export default function AccountsScreen({ q }: { q: string }) {
  const { m, go } = useOps();
  const inputId = useId();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    go({ name: 'accounts', q: String(new FormData(event.currentTarget).get('q') ?? '').trim() });
  }

  return (
    <>
      <form key={q} onSubmit={submit} role="search" className="flex flex-wrap items-end gap-3 rounded-lg border border-line p-3">
        <div className="grow">
          <label htmlFor={inputId} className="block text-sm font-semibold">
            {m.accounts.search}
          </label>
          <input
            id={inputId}
            name="q"
            type="search"
            required
            defaultValue={q}
            className="mt-1 w-full rounded-md border border-line bg-surface px-3 py-2"
          />
        </div>
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
  const done = (label: string) => (result: OpsActionResult) => {
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
                      <ActionDialog
                        m={m}
                        name="unblock"
                        label={m.actions.unblock}
                        title={m.actions.unblockTitle}
                        send={act(account.uid, 'unblock')}
                        onDone={done(m.actions.unblock)}
                      />
                    ) : (
                      <ActionDialog
                        m={m}
                        name="block"
                        danger
                        label={m.actions.block}
                        title={m.actions.blockTitle}
                        send={act(account.uid, 'block')}
                        onDone={done(m.actions.block)}
                      />
                    )}
                    <ActionDialog
                      m={m}
                      name="delete"
                      danger
                      label={m.actions.delete}
                      title={m.actions.deleteTitle}
                      send={act(account.uid, 'delete')}
                      onDone={done(m.actions.delete)}
                    />
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
