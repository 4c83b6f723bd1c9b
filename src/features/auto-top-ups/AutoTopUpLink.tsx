import { useEffect, useState, type FormEvent } from 'react';
import { fill } from '../../i18n/fill.ts';
import type { Locale } from '../../i18n/locales.ts';
import { formatPrice } from '../../lib/format.ts';
import { API_BASE_URL } from '../../shop-client/api-base.ts';
import {
  payAutoTopUp,
  readAutoTopUpLink,
  turnOffAutoTopUpsByLink,
  type AutoTopUpLink as Link,
} from '../../shop-client/auto-top-up-links.ts';
import ErrorBox from '../../ui/ErrorBox.tsx';
import Notice from '../../ui/Notice.tsx';
import SubmitButton from '../../ui/SubmitButton.tsx';
import { topUpText } from '../../lib/auto-top-up-consent.ts';
import type { AutoTopUpLinkMessages } from './messages.ts';

interface Props {
  locale: Locale;
  /** My eSIMs, in the page's language. */
  myEsimsPath: string;
  messages: AutoTopUpLinkMessages;
}

type State =
  | { status: 'loading' | 'invalid' }
  | { status: 'failed'; link?: Link }
  | { status: 'ready' | 'busy'; link: Link }
  | { status: 'off'; link: Link };

/**
 * An automatic top-up's e-mail link (issue 49), without sign-in: the token in ?token= says what it
 * is for. A refused top-up shows what it is and its price, and a button opens Stripe's page for it;
 * the other link turns the eSIM's automatic top-ups off. Nothing happens before the reader's
 * click, so a mail scanner that opens every link pays and stops nothing.
 */
export default function AutoTopUpLink({ locale, myEsimsPath, messages: m }: Props) {
  const [token, setToken] = useState<string>();
  const [state, setState] = useState<State>({ status: 'loading' });
  const [paidNow, setPaidNow] = useState(false);

  useEffect(() => {
    const query = new URLSearchParams(window.location.search);
    const given = query.get('token');
    if (!given) return setState({ status: 'invalid' });
    setPaidNow(query.get('paid') === '1');
    setToken(given);
    void readAutoTopUpLink(API_BASE_URL, given, locale).then((read) =>
      setState(read.status === 'ok' ? { status: 'ready', link: read.value } : { status: read.status === 'invalid' ? 'invalid' : 'failed' }),
    );
  }, [locale]);

  async function act(event: FormEvent) {
    event.preventDefault();
    if (!token || (state.status !== 'ready' && state.status !== 'failed') || !state.link) return;
    const { link } = state;
    setState({ status: 'busy', link });
    if (link.purpose === 'pay') {
      const paid = await payAutoTopUp(API_BASE_URL, token, locale);
      if (paid.status === 'ok') return window.location.assign(paid.value.url);
      return setState(paid.status === 'invalid' ? { status: 'invalid' } : { status: 'failed', link });
    }
    const off = await turnOffAutoTopUpsByLink(API_BASE_URL, token);
    setState(off.status === 'ok' ? { status: 'off', link } : off.status === 'invalid' ? { status: 'invalid' } : { status: 'failed', link });
  }

  const link = 'link' in state ? state.link : undefined;
  const destination = link?.destination.name ?? '';
  let body;
  if (state.status === 'off') body = <Notice>{fill(m.off.done, { destination })}</Notice>;
  else if (link?.purpose === 'off' && !link.enabled) body = <Notice>{fill(m.off.already, { destination })}</Notice>;
  // Back from Stripe's page (?paid=1: it sends only a payment that went through back here), or paid before.
  else if (link?.purpose === 'pay' && (link.state === 'paid' || paidNow)) body = <Notice>{m.pay.paid}</Notice>;
  else if (link?.purpose === 'pay' && link.state !== 'payable') body = <Notice>{m.pay.ended}</Notice>;
  else if (link) {
    const price = link.purpose === 'pay' ? formatPrice(link.total, locale) : '';
    body = (
      <>
        {link.purpose === 'pay' ? (
          <>
            <p>{m.pay.intro}</p>
            <p className="flex items-center gap-2 font-semibold" data-auto-top-up-plan>
              <img src={link.destination.flag} alt="" width="30" height="20" className="rounded-sm border border-line" />
              {destination}:{' '}
              {topUpText(
                { dataAmount: link.plan.metadata.dataAmount, validity: link.plan.validity, validityUnit: link.plan.validityUnit },
                locale,
              )}
              , {price}
            </p>
          </>
        ) : (
          <p>{fill(m.off.intro, { destination })}</p>
        )}
        <ErrorBox message={state.status === 'failed' ? m.failed : undefined} />
        <form onSubmit={(event) => void act(event)} className="max-w-sm">
          <SubmitButton
            busy={state.status === 'busy'}
            label={link.purpose === 'pay' ? fill(m.pay.button, { price }) : m.off.button}
            busyLabel={link.purpose === 'pay' ? m.pay.busy : m.off.button}
          />
        </form>
      </>
    );
  } else if (state.status === 'invalid') body = <ErrorBox message={m.invalidLink} />;
  else if (state.status === 'failed') body = <ErrorBox message={m.failed} />;

  return (
    <div className="space-y-4" data-auto-top-up-link={state.status}>
      <h1 className="text-2xl font-bold">{link?.purpose === 'off' ? m.off.title : link?.purpose === 'pay' ? m.pay.title : m.heading}</h1>
      {state.status === 'loading' ? <p role="status">…</p> : body}
      <a href={myEsimsPath} className="inline-block font-semibold text-brand underline">
        {m.myEsims}
      </a>
    </div>
  );
}
