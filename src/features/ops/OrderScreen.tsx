import { useId, useState } from 'react';
import type { OpsActionResult, OpsOrder } from '../../contract/ops-api.ts';
import { fill } from '../../i18n/fill.ts';
import { formatBytes } from '../../lib/data-size.ts';
import BusyButton from '../../ui/BusyButton.tsx';
import ActionDialog from './ActionDialog.tsx';
import { opsClient } from './ops-api.ts';
import type { OrderAction } from './ops-client.ts';
import { useOps } from './ops-context.ts';
import { formatMoment, formatMoney, formatUsd, majorText, parseMajorAmount } from './ops-format.ts';
import { Fact, Failure, Load, Section, ViewLink } from './OpsParts.tsx';
import { EMPTY_ORDERS_QUERY } from './ops-view.ts';
import { useLoad } from './use-load.ts';
import { OutcomeNotice, type Outcome } from './OutcomeNotice.tsx';

/** Install steps at which the eSIM is on a phone: a refund then asks whether it keeps working. */
const ON_A_PHONE = new Set(['installed', 'enabled', 'in_use']);
/** States with a payment that can still be (partly) refunded. */
const REFUNDABLE = new Set(['paid', 'provisioning', 'delivered', 'fulfilment_failed', 'refund_requested', 'refunded']);
/** States a delivery can be retried from: paid and not delivered. */
const RETRYABLE = new Set(['paid', 'provisioning', 'fulfilment_failed']);
/** Waiting for its eSIM: may go to another partner while nothing is at its own. */
const WAITING = new Set(['paid', 'provisioning']);

/** An order (issue 30 items 3 and 4): everything about it, one timeline, and the actions the role allows. */
export default function OrderScreen({ id }: { id: string }) {
  const { m } = useOps();
  const [state, reload, show] = useLoad(() => opsClient.order(id), id);
  const [outcome, setOutcome] = useState<Outcome>();

  return (
    <>
      <p className="mb-3">
        <ViewLink view={{ name: 'orders', query: EMPTY_ORDERS_QUERY }}>{m.order.back}</ViewLink>
      </p>
      <OutcomeNotice outcome={outcome} />
      <Load state={state} loading={m.order.loading} retry={reload}>
        {(order) => (
          <OrderDetails
            order={order}
            onOutcome={(next) => {
              setOutcome(next);
              reload();
            }}
            onOrder={show}
          />
        )}
      </Load>
    </>
  );
}

function OrderDetails({
  order: o,
  onOutcome,
  onOrder,
}: {
  order: OpsOrder;
  onOutcome: (outcome: Outcome) => void;
  onOrder: (order: OpsOrder) => void;
}) {
  const { m, locale, role } = useOps();
  const admin = role === 'admin';
  const { order, buyer, money, payment, esim } = o;
  const none = m.order.none;
  const [reading, setReading] = useState(false);
  const [readError, setReadError] = useState<unknown>();

  async function readAgain() {
    if (reading) return;
    setReading(true);
    setReadError(undefined);
    try {
      onOrder(await opsClient.readEsim(order.id));
    } catch (error) {
      setReadError(error);
    } finally {
      setReading(false);
    }
  }

  const act = (action: OrderAction) => (body: Record<string, unknown>) => opsClient.orderAction(order.id, action, body as never);
  const done = (result: OpsActionResult, label: string) => onOutcome({ label, result });
  const left = money.retail.amountMinor - money.refunded.amountMinor;

  return (
    <div className="flex flex-col gap-4" data-order={order.number}>
      <div className="flex flex-wrap items-baseline gap-x-4 gap-y-1">
        <p className="text-xl font-bold">{fill(m.order.heading, { number: order.number })}</p>
        <p data-order-state={order.state}>{m.states[order.state]}</p>
        {order.held && <p className="font-semibold text-red-800 dark:text-red-300">{m.order.held}</p>}
      </div>

      <Section title={m.order.actions}>
        <div className="flex flex-wrap gap-2" data-actions>
          <ActionDialog
            name="note"
            textField="text"
            textLabel={m.actions.noteText}
            send={(body) => opsClient.addNote(order.id, body as never)}
            onDone={(next, label) => {
              onOrder(next);
              onOutcome({ label, text: m.actions.noteAdded });
            }}
          />
          <ActionDialog name="resend" fields={<ResendFields />} body={resendBody} send={act('resend-email')} onDone={done} />
          {RETRYABLE.has(order.state) && <ActionDialog name="retry" send={act('retry')} onDone={done} />}
          {/* Another partner for a stuck order (issue 48 item 7); the server says when none can take it. */}
          {WAITING.has(order.state) && order.kind === 'esim' && !order.partnerOrderNo && (
            <ActionDialog name="deliverElsewhere" send={act('deliver-elsewhere')} onDone={done} />
          )}
          {admin && REFUNDABLE.has(order.state) && left > 0 && (
            <ActionDialog
              name="refund"
              danger
              fields={
                <RefundFields
                  left={{ amountMinor: left, currency: money.retail.currency }}
                  installed={ON_A_PHONE.has(esim?.installStep ?? '')}
                />
              }
              body={(form) => refundBody(form, left, money.retail.currency)}
              send={act('refunds')}
              onDone={done}
            />
          )}
          {admin && esim && (
            <>
              <ActionDialog name="suspend" send={act('esim/suspend')} onDone={done} />
              <ActionDialog name="unsuspend" send={act('esim/unsuspend')} onDone={done} />
              <ActionDialog name="revoke" danger send={act('esim/revoke')} onDone={done} />
            </>
          )}
          {/* Automatic top-ups on (issue 49): support may turn them off. */}
          {o.autoTopUp?.enabled && <ActionDialog name="autoTopUpOff" send={act('auto-top-up/off')} onDone={done} />}
          {admin && order.held && (
            <>
              <ActionDialog name="approve" send={act('approve')} onDone={done} />
              <ActionDialog name="reject" danger send={act('reject')} onDone={done} />
            </>
          )}
        </div>
      </Section>

      <div className="grid gap-4 lg:grid-cols-2">
        <Section title={m.order.buyer}>
          <dl className="text-sm">
            <Fact term={m.order.email}>{buyer.email ?? none}</Fact>
            <Fact term={m.order.uid}>{buyer.uid ?? none}</Fact>
            <Fact term={m.order.account}>
              <span data-account-state={buyer.account}>{m.order[`account_${buyer.account}`]}</span>
              {buyer.uid && (
                <>
                  {' · '}
                  <ViewLink view={{ name: 'accounts', q: buyer.uid }}>{m.order.openAccount}</ViewLink>
                </>
              )}
            </Fact>
          </dl>
        </Section>
        <Section title={m.order.plan}>
          <dl className="text-sm">
            <Fact term={m.order.destination}>{order.destination}</Fact>
            <Fact term={m.order.plan}>
              {order.planName} ({order.planId})
            </Fact>
            <Fact term={m.order.kind}>{m.order[`kind_${order.kind}`]}</Fact>
            {order.topUpOf && <Fact term={m.order.topUpOf}>{order.topUpOf}</Fact>}
            {order.exchangeOf && <Fact term={m.order.exchangeOf}>{order.exchangeOf}</Fact>}
            {order.replaces && <Fact term={m.order.replaces}>{order.replaces}</Fact>}
            {order.replacedBy && <Fact term={m.order.replacedBy}>{order.replacedBy}</Fact>}
            {order.cartOrders.length > 0 && (
              <Fact term={m.order.cartOrders}>
                <ul data-cart-orders>
                  {order.cartOrders.map((other) => (
                    <li key={other.id}>
                      <ViewLink view={{ name: 'order', id: other.id }}>{other.number}</ViewLink> · {other.planId} · {other.state}
                      {other.travellerName && ` · ${other.travellerName}`}
                    </li>
                  ))}
                </ul>
              </Fact>
            )}
            {order.traveller && (
              <Fact term={m.order.traveller}>
                <span data-traveller>
                  {[
                    order.traveller.name,
                    order.traveller.email,
                    order.traveller.linkLive ? m.order.travellerLinkLive : m.order.travellerLinkNone,
                  ]
                    .filter(Boolean)
                    .join(' · ')}
                </span>
              </Fact>
            )}
            <Fact term={m.order.language}>{order.lang}</Fact>
            <Fact term={m.orders.created}>{formatMoment(order.createdAt, locale)}</Fact>
            {order.lastError && <Fact term={m.order.lastError}>{order.lastError}</Fact>}
            {order.job && (
              <Fact term={m.order.job}>
                {order.job.state === 'dead' ? m.order.jobDead : m.order.jobPending} · {order.job.kind} · {order.job.attempts}
              </Fact>
            )}
          </dl>
        </Section>
        <Section title={m.order.money}>
          <dl className="text-sm" data-money>
            <Fact term={m.order.retail}>{formatMoney(money.retail, locale)}</Fact>
            <Fact term={m.order.vat}>{formatMoney(money.vat, locale)}</Fact>
            <Fact term={m.order.wholesale}>{formatUsd(money.wholesaleUsd, locale)}</Fact>
            {money.wholesale.currency !== 'USD' && (
              <Fact term={m.currencies.wholesaleConverted}>{formatMoney(money.wholesale, locale)}</Fact>
            )}
            <Fact term={m.currencies.stripeFee}>{money.stripeFee ? formatMoney(money.stripeFee, locale) : m.currencies.notReported}</Fact>
            <Fact term={m.currencies.settled}>
              <span data-settled={money.settled ? `${money.settled.amountMinor} ${money.settled.currency}` : ''}>
                {money.settled ? formatMoney(money.settled, locale) : m.currencies.notReported}
              </span>
            </Fact>
            <Fact term={m.order.margin}>{formatMoney(money.margin, locale)}</Fact>
            <Fact term={m.order.refunded}>
              <span data-refunded>{formatMoney(money.refunded, locale)}</span>
            </Fact>
          </dl>
        </Section>
        <Section title={m.order.payment}>
          {payment ? (
            <dl className="text-sm">
              <Fact term={m.order.method}>{payment.method ?? none}</Fact>
              <Fact term={m.order.checkoutSession}>{payment.checkoutSessionId ?? m.order.offSession}</Fact>
              <Fact term={m.order.paymentIntent}>{payment.paymentIntentId ?? none}</Fact>
              <Fact term={m.order.risk}>{payment.riskLevel ?? none}</Fact>
              <Fact term={m.order.country}>{payment.country ?? none}</Fact>
            </dl>
          ) : (
            <p className="text-sm">{m.order.noPayment}</p>
          )}
        </Section>
        <Section
          title={m.order.esim}
          actions={
            esim && (
              <BusyButton
                busy={reading}
                label={m.order.readAgain}
                busyLabel={m.order.reading}
                onClick={readAgain}
                className="rounded-md border border-line px-3 py-1 text-sm font-semibold aria-disabled:opacity-60"
                data-read-esim
              />
            )
          }
        >
          {readError !== undefined && <Failure error={readError} onRetry={readAgain} />}
          {esim ? (
            <dl className="text-sm">
              <Fact term={m.order.iccid}>{esim.iccid ?? none}</Fact>
              <Fact term={m.order.esimTranNo}>{esim.esimTranNo ?? none}</Fact>
              <Fact term={m.order.partner}>{order.partner}</Fact>
              <Fact term={m.order.partnerOrderNo}>{order.partnerOrderNo ?? none}</Fact>
              <Fact term={m.order.esimStatus}>{esim.status ?? none}</Fact>
              <Fact term={m.order.installStep}>{esim.installStep ?? none}</Fact>
              <Fact term={m.order.usage}>
                {esim.usedBytes !== null && esim.totalBytes !== null
                  ? fill(m.order.usageOf, { used: formatBytes(esim.usedBytes, locale), total: formatBytes(esim.totalBytes, locale) })
                  : none}
              </Fact>
              <Fact term={m.order.expires}>{esim.expiresAt ? formatMoment(esim.expiresAt, locale) : none}</Fact>
              <Fact term={m.order.readAt}>{esim.readAt ? formatMoment(esim.readAt, locale) : none}</Fact>
            </dl>
          ) : (
            <p className="text-sm">{m.order.noEsim}</p>
          )}
        </Section>
        <Section title={m.order.signals}>
          {o.signals.length ? (
            <ul className="list-disc ps-5 text-sm text-red-800 dark:text-red-300" data-signals>
              {o.signals.map((signal) => (
                <li key={signal}>{signal}</li>
              ))}
            </ul>
          ) : (
            <p className="text-sm">{m.order.noSignals}</p>
          )}
        </Section>
      </div>

      {o.autoTopUp && <AutoTopUpSection autoTopUp={o.autoTopUp} />}

      <Section title={m.order.refunds}>
        {o.refunds.length ? (
          <Table
            label={m.order.refunds}
            head={[
              m.order.refundWhen,
              m.order.refundBy,
              m.order.refundReason,
              m.order.refundAmount,
              m.order.refundStatus,
              m.order.refundStripe,
            ]}
            rows={o.refunds.map((r) => [
              formatMoment(r.createdAt, locale),
              r.operator ? `${m.order[`refundBy_${r.requestedBy}`]} (${r.operator})` : m.order[`refundBy_${r.requestedBy}`],
              r.reason,
              formatMoney(r.amount, locale),
              r.status,
              r.stripeRefundId ?? none,
            ])}
            name="refunds"
          />
        ) : (
          <p className="text-sm">{m.order.noRefunds}</p>
        )}
      </Section>

      <Section title={m.order.timeline}>
        <Table
          label={m.order.timeline}
          head={[m.order.at, m.order.source, m.order.what, m.order.detail, m.order.who]}
          rows={o.timeline.map((entry) => [
            formatMoment(entry.at, locale),
            m.order[`source_${entry.source}`],
            entry.what,
            entry.detail ?? '',
            entry.who ?? '',
          ])}
          name="timeline"
        />
      </Section>
    </div>
  );
}

/** A plain table that scrolls sideways on a phone. */
/** An eSIM's automatic top-ups (issue 49): on or off, the limits, the consent as given, each crossing of 10 % left and each change. */
function AutoTopUpSection({ autoTopUp: a }: { autoTopUp: NonNullable<OpsOrder['autoTopUp']> }) {
  const { m, locale } = useOps();
  return (
    <Section title={m.order.autoTopUp}>
      <dl className="text-sm" data-auto-top-up={a.enabled ? 'on' : 'off'}>
        <Fact term={m.order.autoTopUp}>{a.enabled ? m.order.autoTopUpOn : m.order.autoTopUpOff}</Fact>
        <Fact term={m.order.autoTopUpLimits}>
          {fill(m.order.autoTopUpLimitsValue, {
            count: String(a.maxCount),
            cap: formatMoney(a.monthlyCap, locale),
            package: a.packageId ?? m.order.autoTopUpCheapest,
          })}
        </Fact>
        <Fact term={m.order.autoTopUpRefusals}>{String(a.refusalsInRow)}</Fact>
        <Fact term={fill(m.order.autoTopUpConsent, { lang: a.consentLang, date: formatMoment(a.consentedAt, locale) })}>
          <span lang={a.consentLang}>{a.consentText}</span>
        </Fact>
      </dl>
      {a.crossings.length > 0 && (
        <Table
          name="auto-top-ups"
          label={m.order.autoTopUpCrossings}
          head={[m.order.autoTopUpCrossings, m.order.refundStatus, m.order.refundReason, m.order.refundWhen]}
          rows={a.crossings.map((c) => [
            c.orderNumber ? `${c.crossing}: ${c.orderNumber}` : c.crossing,
            c.state,
            c.why ?? '',
            formatMoment(c.at, locale),
          ])}
        />
      )}
      <h3 className="mt-3 text-sm font-semibold">{m.order.autoTopUpChanges}</h3>
      <ul className="list-disc ps-5 text-sm" data-auto-top-up-changes>
        {a.changes.map((change) => (
          <li key={`${change.at} ${change.change}`}>
            {formatMoment(change.at, locale)}, {change.by}: {change.change}
          </li>
        ))}
      </ul>
    </Section>
  );
}

function Table({ label, head, rows, name }: { label: string; head: string[]; rows: string[][]; name: string }) {
  // A table wider than a phone scrolls sideways; axe (scrollable-region-focusable) wants it reachable by keyboard.
  return (
    // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex
    <div className="overflow-x-auto" tabIndex={0} role="region" aria-label={label}>
      <table className="w-full min-w-[40rem] text-sm" data-table={name}>
        <thead>
          <tr className="border-b border-line">
            {head.map((cell) => (
              <th key={cell} scope="col" className="px-2 py-1 text-start">
                {cell}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => (
            <tr key={index} className="border-b border-line align-top">
              {row.map((cell, column) => (
                <td key={column} className={`px-2 py-1 ${column === 0 ? 'whitespace-nowrap' : 'break-words'}`}>
                  {cell}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The address to send to: support may give only the traveller's (another address needs an admin: issue 46 item 6). */
function ResendFields() {
  const { m, role } = useOps();
  const id = useId();
  const hint = useId();
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-semibold">
        {m.actions.resendTo}
      </label>
      <input
        id={id}
        name="to"
        type="email"
        maxLength={320}
        aria-describedby={hint}
        className="mt-1 w-full rounded-md border border-line bg-surface px-3 py-2"
      />
      <p id={hint} className="mt-1 text-xs text-ink-muted">
        {role === 'admin' ? m.actions.resendToHint : m.actions.resendToSupportHint}
      </p>
    </div>
  );
}

const resendBody = (form: FormData) => {
  const to = String(form.get('to') ?? '').trim();
  return to ? { to } : {};
};

/** The refund's amount (the rest, or a part) and, for an eSIM on a phone, whether it keeps working. */
function RefundFields({ left, installed }: { left: { amountMinor: number; currency: string }; installed: boolean }) {
  const { m, locale } = useOps();
  const amountId = useId();
  const errorId = useId();
  const [part, setPart] = useState(false);
  return (
    <>
      <fieldset>
        <legend className="text-sm font-semibold">{m.order.refundAmount}</legend>
        <label className="mt-1 flex items-center gap-2">
          <input type="radio" name="how" value="rest" defaultChecked onChange={() => setPart(false)} />
          {fill(m.actions.refundRest, { amount: formatMoney(left, locale) })}
        </label>
        <label className="mt-1 flex items-center gap-2">
          <input type="radio" name="how" value="part" onChange={() => setPart(true)} />
          {m.actions.refundPart}
        </label>
        <div className="mt-2 ps-6">
          <label htmlFor={amountId} className="block text-sm">
            {fill(m.actions.refundAmount, { currency: left.currency })}
          </label>
          <input
            id={amountId}
            name="amount"
            inputMode="decimal"
            autoComplete="off"
            disabled={!part}
            required={part}
            pattern="\d+([.,]\d+)?"
            placeholder={majorText(left.amountMinor, left.currency)}
            aria-describedby={errorId}
            className="mt-1 w-40 rounded-md border border-line bg-surface px-3 py-2 disabled:opacity-60"
          />
          <p id={errorId} className="mt-1 text-xs text-ink-muted">
            {fill(m.actions.refundAmountInvalid, { max: formatMoney(left, locale) })}
          </p>
        </div>
      </fieldset>
      {installed && (
        <fieldset>
          <legend className="text-sm font-semibold">{m.actions.refundEsim}</legend>
          <label className="mt-1 flex items-center gap-2">
            <input type="radio" name="esim" value="leave" defaultChecked />
            {m.actions.refundLeave}
          </label>
          <label className="mt-1 flex items-center gap-2">
            <input type="radio" name="esim" value="suspend" />
            {m.actions.refundSuspend}
          </label>
        </fieldset>
      )}
    </>
  );
}

function refundBody(form: FormData, left: number, currency: string): Record<string, unknown> | undefined {
  const body: Record<string, unknown> = {};
  if (form.get('esim') === 'suspend') body.esim = 'suspend';
  if (form.get('how') !== 'part') return body;
  const amountMinor = parseMajorAmount(String(form.get('amount') ?? ''), currency);
  // The field's hint says what is wrong; the dialog stays open.
  if (amountMinor === undefined || amountMinor > left) return undefined;
  return { ...body, amountMinor };
}
