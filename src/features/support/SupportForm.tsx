import { useStore } from '@nanostores/react';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { SUPPORT_MESSAGE_MAX, SUPPORT_MESSAGE_MIN, SupportRequest } from '../../contract/support-api.ts';
import type { OrderView } from '../../contract/shop-api.ts';
import { fill } from '../../i18n/fill.ts';
import type { Locale } from '../../i18n/locales.ts';
import { listOrders } from '../../shop-client/shop.ts';
import { SupportError } from '../../shop-client/support-client.ts';
import ErrorBox from '../../ui/ErrorBox.tsx';
import SubmitButton from '../../ui/SubmitButton.tsx';
import { $session } from '../auth/session.ts';
import { useDevice } from '../esims/use-device.ts';
import { idTokenIfSignedIn, supportClient } from './support-api.ts';
import type { SupportFormMessages } from './support-messages.ts';

interface Props {
  locale: Locale;
  messages: SupportFormMessages;
  /** The provider's address, for when the form cannot help (too many requests). */
  supportEmail: string;
  /** The profile, where a signed-in buyer finds the answer. */
  profilePath: string;
}

type FieldName = 'message' | 'email';

/**
 * The support form (issue 32 item 4) on /chat: a signed-in buyer picks one of their orders or eSIMs
 * (the diagnosis' "Ask us" link names one, with its cause, in ?esim=&cause=); a visitor gives an
 * e-mail and may name an order number. The spam check needs no third-party script: a field people do
 * not see, and the time the form was shown signed by the API. Checked with the API's own schema
 * before sending; a refusal keeps everything typed.
 */
export default function SupportForm({ locale, messages: m, supportEmail, profilePath }: Props) {
  // useId's ids begin with an underscore, which HTML's ids may not: a letter first.
  const id = `support${useId()}`;
  const session = useStore($session);
  const system = useDevice()?.system;
  const [orders, setOrders] = useState<OrderView[]>([]);
  const [orderId, setOrderId] = useState('');
  const [cause, setCause] = useState<string | undefined>();
  const [email, setEmail] = useState('');
  const [orderNumber, setOrderNumber] = useState('');
  const [message, setMessage] = useState('');
  const [website, setWebsite] = useState('');
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [failure, setFailure] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState<string>();
  const token = useRef<Promise<string> | undefined>(undefined);
  const messageRef = useRef<HTMLTextAreaElement>(null);
  const emailRef = useRef<HTMLInputElement>(null);
  const signedIn = session.status === 'signedIn';

  // The form's signed time: asked for when the form is shown (again after each request sent or refused).
  const newToken = () => {
    token.current = supportClient.form().then((f) => f.formToken);
    token.current.catch(() => {});
  };
  useEffect(() => {
    newToken();
    const query = new URLSearchParams(window.location.search);
    const esim = query.get('esim');
    if (esim) setOrderId(esim);
    const named = query.get('cause');
    if (named && /^[a-z_]{1,30}$/.test(named)) setCause(named);
  }, []);
  useEffect(() => {
    if (!signedIn) return;
    listOrders(locale).then(
      (list) => setOrders(list.orders.filter((o) => o.state !== 'pending_payment' && o.state !== 'expired')),
      () => setOrders([]),
    );
  }, [signedIn, locale]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFailure(undefined);
    const request = {
      message,
      lang: locale,
      ...(!signedIn && { email: email.trim() }),
      ...(signedIn && orderId && { orderId }),
      ...(!signedIn && orderNumber.trim() && { orderNumber: orderNumber.trim() }),
      ...(system && { phone: system }),
      ...(cause && signedIn && orderId && { cause }),
      website,
      formToken: '',
    };
    const checked = SupportRequest.safeParse(request);
    const found: Partial<Record<FieldName, string>> = {};
    for (const issue of checked.success ? [] : checked.error.issues) {
      if (issue.path[0] === 'message')
        found.message = fill(message.trim().length < SUPPORT_MESSAGE_MIN ? m.errors.messageShort : m.errors.messageLong, {
          min: String(SUPPORT_MESSAGE_MIN),
          max: String(SUPPORT_MESSAGE_MAX),
        });
      if (issue.path[0] === 'email') found.email = m.errors.email;
    }
    if (!signedIn && !email.trim()) found.email = m.errors.email;
    setErrors(found);
    if (found.email) return emailRef.current?.focus();
    if (found.message) return messageRef.current?.focus();
    setBusy(true);
    try {
      if (!token.current) newToken();
      const formToken = await token.current!;
      const created = await supportClient.send({ ...request, formToken }, await idTokenIfSignedIn());
      setSent(created.reference);
      setMessage('');
      newToken();
    } catch (error) {
      const kind = error instanceof SupportError ? error.kind : 'network';
      // A token is good for one request whatever its answer: the next try needs a new one.
      newToken();
      setFailure(
        kind === 'spam'
          ? m.errors.spam
          : kind === 'tooManyRequests'
            ? fill(m.errors.tooMany, { email: supportEmail })
            : kind === 'notFound'
              ? m.errors.notFound
              : kind === 'network'
                ? m.errors.network
                : m.errors.server,
      );
    } finally {
      setBusy(false);
    }
  }

  if (sent)
    return (
      <div role="status" className="mt-6 rounded-2xl border border-line p-5" data-support-sent={sent}>
        <h2 className="text-lg font-semibold">{m.sentHeading}</h2>
        <p className="mt-2">{fill(m.sent, { reference: sent })}</p>
        {signedIn && (
          <p className="mt-2">
            <a href={`${profilePath}#support`} className="font-semibold text-brand underline">
              {m.sentProfile}
            </a>
          </p>
        )}
        <button
          type="button"
          onClick={() => setSent(undefined)}
          className="mt-4 rounded-full border border-line px-4 py-2 text-sm font-semibold"
        >
          {m.another}
        </button>
      </div>
    );

  const input = 'mt-1 w-full rounded-xl border border-line bg-surface px-4 py-3';
  const fieldError = (name: FieldName) =>
    errors[name] && (
      <p id={`${id}-${name}-error`} className="mt-1 text-sm text-red-700 dark:text-red-300">
        {errors[name]}
      </p>
    );
  const described = (name: FieldName, hint?: string) =>
    [errors[name] && `${id}-${name}-error`, hint].filter(Boolean).join(' ') || undefined;
  return (
    <form
      onSubmit={submit}
      noValidate
      className="mt-6 space-y-4 rounded-2xl border border-line p-5"
      aria-labelledby={`${id}-heading`}
      data-support-form
    >
      <h2 id={`${id}-heading`} className="text-lg font-semibold">
        {m.heading}
      </h2>
      <p className="text-ink-muted">{m.intro}</p>
      {signedIn ? (
        <div>
          <label htmlFor={`${id}-order`} className="block text-sm font-medium">
            {m.about}
          </label>
          <select id={`${id}-order`} name="orderId" value={orderId} onChange={(e) => setOrderId(e.target.value)} className={input}>
            <option value="">{m.aboutNone}</option>
            {orders.map((o) => (
              <option key={o.id} value={o.id}>
                {fill(m.aboutOption, { number: o.number, destination: o.destination.name })}
              </option>
            ))}
            {orderId && !orders.some((o) => o.id === orderId) && <option value={orderId}>{m.aboutThisEsim}</option>}
          </select>
          {orderId && <p className="mt-1 text-sm text-ink-muted">{m.attached}</p>}
        </div>
      ) : (
        <>
          <div>
            <label htmlFor={`${id}-email`} className="block text-sm font-medium">
              {m.email}
            </label>
            <input
              ref={emailRef}
              id={`${id}-email`}
              name="email"
              type="email"
              autoComplete="email"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              aria-invalid={!!errors.email}
              aria-describedby={described('email')}
              className={input}
            />
            {fieldError('email')}
          </div>
          <div>
            <label htmlFor={`${id}-number`} className="block text-sm font-medium">
              {m.orderNumber}
            </label>
            <input
              id={`${id}-number`}
              name="orderNumber"
              type="text"
              autoComplete="off"
              dir="ltr"
              value={orderNumber}
              onChange={(e) => setOrderNumber(e.target.value)}
              className={input}
            />
          </div>
        </>
      )}
      <div>
        <label htmlFor={`${id}-message`} className="block text-sm font-medium">
          {m.message}
        </label>
        <textarea
          ref={messageRef}
          id={`${id}-message`}
          name="message"
          rows={6}
          required
          maxLength={SUPPORT_MESSAGE_MAX}
          value={message}
          onChange={(e) => setMessage(e.target.value)}
          aria-invalid={!!errors.message}
          aria-describedby={described('message', `${id}-message-hint`)}
          className={input}
        />
        <p id={`${id}-message-hint`} className="mt-1 text-sm text-ink-muted">
          {fill(m.messageHint, { min: String(SUPPORT_MESSAGE_MIN) })}
        </p>
        {fieldError('message')}
      </div>
      {/* The honeypot: hidden from people and from screen readers; a bot fills it in. */}
      <div aria-hidden="true" className="sr-only">
        <label htmlFor={`${id}-website`}>{m.honeypot}</label>
        <input
          id={`${id}-website`}
          name="website"
          type="text"
          tabIndex={-1}
          autoComplete="off"
          value={website}
          onChange={(e) => setWebsite(e.target.value)}
        />
      </div>
      <ErrorBox message={failure} />
      <SubmitButton busy={busy} label={m.send} busyLabel={m.sending} />
    </form>
  );
}
