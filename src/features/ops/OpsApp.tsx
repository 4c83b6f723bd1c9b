import { useStore } from '@nanostores/react';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { Locale } from '../../i18n/locales.ts';
import { fill } from '../../i18n/fill.ts';
import { loginUrl } from '../auth/redirect.ts';
import { $session } from '../auth/session.ts';
import LoadingStatus from '../../ui/LoadingStatus.tsx';
import AccountsScreen from './AccountsScreen.tsx';
import DashboardScreen from './DashboardScreen.tsx';
import { opsClient } from './ops-api.ts';
import { OpsError } from './ops-client.ts';
import { OpsContext, type Ops } from './ops-context.ts';
import type { OpsMessages } from './ops-messages.ts';
import { EMPTY_ORDERS_QUERY, readView, viewSearch, type OpsView } from './ops-view.ts';
import { Failure } from './OpsParts.tsx';
import OrderScreen from './OrderScreen.tsx';
import OrdersScreen from './OrdersScreen.tsx';
import SupportScreen from './SupportScreen.tsx';
import { useLoad } from './use-load.ts';

interface Props {
  locale: Locale;
  messages: OpsMessages;
  /** The localized login page. */
  loginPath: string;
  /** The home page of the shop, for someone who is not staff. */
  shopPath: string;
}

/**
 * The back office (issue 30, DESIGN 8): one island for its screens. Nothing is shown before the
 * API has said who calls (GET /ops/me); a buyer (403) sees one sentence and nothing of any order.
 */
export default function OpsApp({ locale, messages: m, loginPath, shopPath }: Props) {
  const session = useStore($session);
  // The login page brings the operator back to this very screen.
  const [here, setHere] = useState('');
  useEffect(() => setHere(window.location.pathname + window.location.search), []);
  const loginHref = loginUrl(loginPath, here || '/');

  if (session.status === 'loading') return <LoadingStatus>{m.session.loading}</LoadingStatus>;
  if (session.status === 'signedOut') return <Turned why="signedOut" m={m} href={loginHref} />;
  return <SignedIn key={session.user.uid} locale={locale} m={m} loginHref={loginHref} shopPath={shopPath} />;
}

/** Someone who cannot use the back office: signed out (a link to sign in), or not staff (a link to the shop). */
const TURNED = {
  signedOut: { data: 'data-ops-signed-out', link: 'signIn', linkClass: 'rounded-md bg-brand px-4 py-2 font-semibold text-brand-ink' },
  staffOnly: { data: 'data-ops-staff-only', link: 'toShop', linkClass: 'font-medium text-brand underline underline-offset-2' },
} as const;

/** All that someone who cannot use the back office sees: one sentence, and a link away. */
function Turned({ why, m, href }: { why: keyof typeof TURNED; m: OpsMessages; href: string }) {
  const { data, link, linkClass } = TURNED[why];
  return (
    <div className="py-6" {...{ [data]: true }}>
      <p>{m.session[why]}</p>
      <a href={href} className={`mt-3 inline-block ${linkClass}`}>
        {m.session[link]}
      </a>
    </div>
  );
}

function SignedIn({ locale, m, loginHref, shopPath }: { locale: Locale; m: OpsMessages; loginHref: string; shopPath: string }) {
  const [me, retry] = useLoad(() => opsClient.me(), 'me');
  const [view, setView] = useState<OpsView>(() => readView(window.location.search));
  const heading = useRef<HTMLHeadingElement>(null);
  const moved = useRef(false);

  useEffect(() => {
    const onPop = () => {
      moved.current = true;
      setView(readView(window.location.search));
    };
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);

  // A new screen: focus goes to its heading, so a screen reader hears where it is and Tab starts there.
  useEffect(() => {
    if (moved.current) heading.current?.focus();
  }, [view]);

  const href = useCallback((next: OpsView) => window.location.pathname + (viewSearch(next) || '?'), []);
  const go = useCallback(
    (next: OpsView) => {
      moved.current = true;
      window.history.pushState(null, '', href(next));
      setView(next);
    },
    [href],
  );

  if (me.status === 'loading') return <LoadingStatus>{m.session.loading}</LoadingStatus>;
  if (me.status === 'error') {
    // A buyer: one sentence, nothing of the back office.
    if (me.error instanceof OpsError && me.error.status === 403 && me.error.code === 'forbidden')
      return <Turned why="staffOnly" m={m} href={shopPath} />;
    const ops: Ops = { m, locale, role: 'support', href, go, loginHref };
    return (
      <OpsContext.Provider value={ops}>
        <Failure error={me.error} onRetry={retry} />
      </OpsContext.Provider>
    );
  }

  return <Screens me={me.data} m={m} locale={locale} view={view} href={href} go={go} loginHref={loginHref} heading={heading} />;
}

function Screens({
  me,
  m,
  locale,
  view,
  href,
  go,
  loginHref,
  heading,
}: {
  me: { email: string | null; uid: string; role: 'support' | 'admin' };
  m: OpsMessages;
  locale: Locale;
  view: OpsView;
  href: Ops['href'];
  go: Ops['go'];
  loginHref: string;
  heading: React.RefObject<HTMLHeadingElement | null>;
}) {
  const ops = useMemo<Ops>(() => ({ m, locale, role: me.role, href, go, loginHref }), [m, locale, me.role, href, go, loginHref]);
  const admin = me.role === 'admin';
  // Support has no dashboard: its address shows the orders instead.
  const shown: OpsView = view.name === 'dashboard' && !admin ? { name: 'orders', query: EMPTY_ORDERS_QUERY } : view;
  const tabs: { name: OpsView['name']; label: string; view: OpsView }[] = [
    { name: 'orders', label: m.nav.orders, view: { name: 'orders', query: EMPTY_ORDERS_QUERY } },
    { name: 'accounts', label: m.nav.accounts, view: { name: 'accounts', q: '' } },
    { name: 'support', label: m.nav.support, view: { name: 'support', id: '', closed: false, q: '' } },
    ...(admin ? [{ name: 'dashboard' as const, label: m.nav.dashboard, view: { name: 'dashboard' } as OpsView }] : []),
  ];
  const current = shown.name === 'order' ? 'orders' : shown.name;
  const title = {
    orders: m.orders.heading,
    order: m.orders.heading,
    accounts: m.accounts.heading,
    dashboard: m.dashboard.heading,
    support: m.support.heading,
  }[shown.name];

  return (
    <OpsContext.Provider value={ops}>
      <div className="flex flex-wrap items-center justify-between gap-3 border-b border-line pb-2">
        <nav aria-label={m.nav.label}>
          <ul className="flex flex-wrap gap-1">
            {tabs.map((tab) => (
              <li key={tab.name}>
                <a
                  href={href(tab.view)}
                  aria-current={tab.name === current ? 'page' : undefined}
                  onClick={(event) => {
                    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
                    event.preventDefault();
                    go(tab.view);
                  }}
                  className="block rounded-md px-3 py-1.5 font-semibold aria-[current]:bg-brand aria-[current]:text-brand-ink"
                >
                  {tab.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <p className="text-sm text-ink-muted" data-ops-role={me.role}>
          {fill(m.nav.signedInAs, { who: me.email ?? me.uid, role: m.nav[`role_${me.role}`] })}
        </p>
      </div>
      <h2 ref={heading} tabIndex={-1} className="mt-4 mb-3 text-xl font-bold focus:outline-none">
        {title}
      </h2>
      {shown.name === 'orders' && <OrdersScreen query={shown.query} />}
      {shown.name === 'order' && <OrderScreen key={shown.id} id={shown.id} />}
      {shown.name === 'accounts' && <AccountsScreen q={shown.q} />}
      {shown.name === 'dashboard' && <DashboardScreen />}
      {shown.name === 'support' && <SupportScreen id={shown.id} closed={shown.closed} q={shown.q} />}
    </OpsContext.Provider>
  );
}
