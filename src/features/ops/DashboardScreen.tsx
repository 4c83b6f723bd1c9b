import { useState, type FormEvent } from 'react';
import type { OpsActionResult, OpsPartner, OpsPeriod } from '../../contract/ops-api.ts';
import { fill } from '../../i18n/fill.ts';
import BusyButton from '../../ui/BusyButton.tsx';
import ActionDialog from './ActionDialog.tsx';
import { opsClient } from './ops-api.ts';
import { useOps } from './ops-context.ts';
import { formatMoment, formatMoney, formatUsd } from './ops-format.ts';
import { DateField, Failure, Load, Section, ViewLink } from './OpsParts.tsx';
import { OutcomeNotice, type Outcome } from './OutcomeNotice.tsx';
import { useLoad } from './use-load.ts';

/** The business (issue 30 item 8, admin): the periods' figures, the partners' balance and health, the sales pause, the audit, the CSV. */
export default function DashboardScreen() {
  const { m, locale } = useOps();
  const [state, reload] = useLoad(() => opsClient.dashboard(), 'dashboard');
  const [outcome, setOutcome] = useState<Outcome>();
  const done = (result: OpsActionResult, label: string) => {
    setOutcome({ label, result });
    reload();
  };

  return (
    <>
      <OutcomeNotice outcome={outcome} />
      <Load state={state} loading={m.dashboard.loading} retry={reload}>
        {(dashboard) => (
          <div className="flex flex-col gap-4" data-dashboard>
            <Periods periods={dashboard.periods} />
            <p className="text-sm text-ink-muted" data-rates-date={dashboard.ratesDate}>
              {fill(m.currencies.inEur, { date: dashboard.ratesDate })}
            </p>
            <ByCurrency periods={dashboard.periods} />
            <div className="grid gap-4 lg:grid-cols-2">
              <Partners partners={dashboard.partners} lowBalanceUsd={dashboard.lowBalanceUsd} />
              <Section
                title={m.dashboard.sales}
                actions={
                  dashboard.salesPause ? (
                    <ActionDialog name="resume" send={(body) => opsClient.salesAction('resume', body as never)} onDone={done} />
                  ) : (
                    <ActionDialog name="pause" danger send={(body) => opsClient.salesAction('pause', body as never)} onDone={done} />
                  )
                }
              >
                <p data-sales={dashboard.salesPause ? 'paused' : 'on'}>
                  {dashboard.salesPause
                    ? fill(m.dashboard.salesPaused, {
                        since: formatMoment(dashboard.salesPause.since, locale),
                        reason: dashboard.salesPause.reason,
                      })
                    : m.dashboard.salesOn}
                </p>
              </Section>
            </div>
            <Section title={m.dashboard.support}>
              <p data-support-open={dashboard.support.open}>
                <ViewLink view={{ name: 'support', id: '', closed: false, q: '' }}>
                  {fill(m.dashboard.supportOpen, { count: String(dashboard.support.open) })}
                </ViewLink>
              </p>
              <p className="text-sm" data-support-median>
                {dashboard.support.medianFirstReplyMinutes === null
                  ? m.dashboard.supportNoReplies
                  : fill(m.dashboard.supportMedian, {
                      minutes: new Intl.NumberFormat(locale).format(dashboard.support.medianFirstReplyMinutes),
                    })}
              </p>
            </Section>
            <Section title={m.dashboard.audit}>
              {dashboard.audit.length === 0 ? (
                <p className="text-sm">{m.dashboard.auditClean}</p>
              ) : (
                <ul className="list-disc ps-5 text-sm" data-audit>
                  {dashboard.audit.map((finding, index) => (
                    <li key={index}>
                      {finding.orderId && (
                        <>
                          <ViewLink view={{ name: 'order', id: finding.orderId }}>{finding.orderId}</ViewLink>
                          {': '}
                        </>
                      )}
                      {finding.finding}
                    </li>
                  ))}
                </ul>
              )}
            </Section>
            <CsvExport />
          </div>
        )}
      </Load>
    </>
  );
}

/** Each partner's balance and health (issue 48 item 6): whether it answers, and whether orders go to it. */
function Partners({ partners, lowBalanceUsd }: { partners: OpsPartner[]; lowBalanceUsd: number }) {
  const { m, locale } = useOps();
  return (
    <Section title={m.dashboard.partners}>
      <ul className="flex flex-col gap-3" data-partners>
        {partners.map((partner) => (
          <li key={partner.id} data-partner={partner.id} data-breaker={partner.breaker} data-paused={partner.pausedSince ? 'yes' : 'no'}>
            <p>
              <span className="font-semibold">{partner.name}</span>
              {': '}
              <span className="text-lg font-bold" data-balance>
                {partner.balanceUsd === null ? m.dashboard.balanceUnknown : formatUsd(partner.balanceUsd, locale)}
              </span>
            </p>
            {partner.balanceUsd !== null && partner.balanceUsd < lowBalanceUsd && (
              <p className="font-semibold text-red-800 dark:text-red-300">{m.dashboard.balanceLow}</p>
            )}
            <p className="text-sm">{m.dashboard[`breaker_${partner.breaker}`]}</p>
            {partner.budget && (
              <p className="text-sm" data-budget={`${partner.budget.held}/${partner.budget.requests}`}>
                {fill(m.dashboard.budget, {
                  held: String(partner.budget.held),
                  requests: String(partner.budget.requests),
                  waiting: String(partner.budget.waitingInstances),
                })}
              </p>
            )}
            {partner.pausedSince && (
              <p className="text-sm font-semibold text-red-800 dark:text-red-300">
                {fill(m.dashboard.partnerPaused, { since: formatMoment(partner.pausedSince, locale) })}
              </p>
            )}
          </li>
        ))}
      </ul>
      <p className="text-sm text-ink-muted">{fill(m.dashboard.lowBalance, { amount: formatUsd(lowBalanceUsd, locale) })}</p>
    </Section>
  );
}

function Periods({ periods }: { periods: OpsPeriod[] }) {
  const { m, locale } = useOps();
  const money = (value: { amountMinor: number; currency: string } | null) => (value ? formatMoney(value, locale) : m.dashboard.notReported);
  const rows: [string, (p: OpsPeriod) => string][] = [
    [m.dashboard.orders, (p) => new Intl.NumberFormat(locale).format(p.orders)],
    [m.dashboard.gross, (p) => money(p.gross)],
    [m.currencies.estimatedOrders, (p) => new Intl.NumberFormat(locale).format(p.estimatedOrders)],
    [m.dashboard.wholesale, (p) => formatUsd(p.wholesaleUsd, locale)],
    [m.dashboard.stripeFees, (p) => money(p.stripeFees)],
    [m.dashboard.refunds, (p) => money(p.refunds)],
    [m.dashboard.margin, (p) => money(p.margin)],
    [m.dashboard.topDestinations, (p) => p.topDestinations.map((d) => `${d.destination} (${d.orders})`).join(', ')],
  ];
  return (
    <PeriodTable
      periods={periods}
      label={m.dashboard.heading}
      firstColumn={m.dashboard.figure}
      rows={rows.map(([label, value]) => ({ key: label, label, cell: value }))}
      data={{ 'data-periods': true }}
    />
  );
}

/** The periods' orders by the currency they were paid in, each gross in its own currency (the euro first). */
function ByCurrency({ periods }: { periods: OpsPeriod[] }) {
  const { m, locale } = useOps();
  const currencies = [...new Set(periods.flatMap((p) => p.byCurrency.map((line) => line.currency)))];
  if (currencies.length === 0) return null;
  const cell = (currency: string) => (p: OpsPeriod) => {
    const line = p.byCurrency.find((l) => l.currency === currency);
    return line
      ? fill(m.currencies.line, { orders: new Intl.NumberFormat(locale).format(line.orders), gross: formatMoney(line.gross, locale) })
      : '–';
  };
  return (
    <Section title={m.currencies.byCurrency}>
      <PeriodTable
        periods={periods}
        label={m.currencies.byCurrency}
        firstColumn={m.currencies.currency}
        rows={currencies.map((currency) => ({ key: currency, label: currency, cell: cell(currency), data: { 'data-currency': currency } }))}
        data={{ 'data-by-currency': true }}
      />
    </Section>
  );
}

interface PeriodRow {
  key: string;
  label: string;
  cell: (period: OpsPeriod) => string;
  data?: Record<string, string>;
}

/** A figure a row, a period a column. A table wider than a phone scrolls sideways; axe (scrollable-region-focusable) wants it reachable by keyboard. */
function PeriodTable(props: {
  periods: OpsPeriod[];
  label: string;
  firstColumn: string;
  rows: PeriodRow[];
  data: Record<string, boolean>;
}) {
  const { m } = useOps();
  const title = (days: number) => (days <= 1 ? m.dashboard.today : fill(m.dashboard.period, { days: String(days) }));
  return (
    // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex
    <div className="overflow-x-auto" tabIndex={0} role="region" aria-label={props.label}>
      <table className="w-full min-w-[36rem] text-sm" {...props.data}>
        <thead>
          <tr className="border-b border-line">
            <th scope="col" className="px-2 py-1 text-start">
              {props.firstColumn}
            </th>
            {props.periods.map((p) => (
              <th key={p.days} scope="col" className="px-2 py-1 text-end">
                {title(p.days)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={row.key} className="border-b border-line align-top" {...row.data}>
              <th scope="row" className="px-2 py-1 text-start font-medium">
                {row.label}
              </th>
              {props.periods.map((p) => (
                <td key={p.days} className="px-2 py-1 text-end">
                  {row.cell(p)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The accountant's CSV: fetched with the ID token (a plain link cannot send it) and saved from a Blob. */
function CsvExport() {
  const { m } = useOps();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  async function download(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    const data = new FormData(event.currentTarget);
    const from = String(data.get('from') ?? '');
    const to = String(data.get('to') ?? '');
    setBusy(true);
    setError(undefined);
    try {
      const blob = await opsClient.ordersCsv({ from, to });
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = `orders${from ? `-${from}` : ''}${to ? `-${to}` : ''}.csv`;
      link.click();
      // After the click has handed the file to the browser's download.
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Section title={m.dashboard.csv}>
      <form onSubmit={download} className="flex flex-wrap items-end gap-3">
        <DateField label={m.dashboard.csvFrom} name="from" />
        <DateField label={m.dashboard.csvTo} name="to" />
        <BusyButton
          type="submit"
          busy={busy}
          label={m.dashboard.csvDownload}
          busyLabel={m.dashboard.csvBusy}
          className="rounded-md bg-brand px-4 py-2 font-semibold text-brand-ink aria-disabled:opacity-60"
          data-csv
        />
      </form>
      {error !== undefined && <Failure error={error} />}
    </Section>
  );
}
