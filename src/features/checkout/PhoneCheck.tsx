import { useEffect, useRef, useState } from 'react';
import { fill } from '../../i18n/fill.ts';
import { useDevice } from '../esims/use-device.ts';
import type { CheckoutNamespace } from './messages.ts';
import {
  asksAboutDestination,
  findModel,
  loadPhoneCheck,
  phoneCheckDone,
  savePhoneCheck,
  type LockAnswer,
  type PhoneCheck as Answers,
} from './phone-check.ts';

export type PhoneCheckMessages = CheckoutNamespace['checkout']['phoneCheck'];

interface Props {
  /** The plan's destination: its code (a country's 'JP', a region's 'europe') and its name in this language. */
  destination: { code?: string | undefined; name: string };
  storePath: string;
  messages: PhoneCheckMessages;
}

type Brands = Record<string, readonly string[]>;

const LOCK_ANSWERS: readonly LockAnswer[] = ['unlocked', 'locked', 'unsure'];
const LOCK_SUMMARY = { unlocked: 'summaryUnlocked', locked: 'summaryLocked', unsure: 'summaryUnsure' } as const;
const LOCK_ADVICE = { unlocked: 'unlockedAdvice', locked: 'lockedAdvice', unsure: 'unsureAdvice' } as const;

/**
 * "Will it work on my phone?" (issue 32, item 1), above the consents and the pay button: the phone
 * model against the device list we keep (loaded only when the question shows, so checkout's
 * JavaScript stays small), whether the phone is carrier-locked with the place to look on this
 * phone's system (both on a computer), and a gentle question when the browser's region is the
 * destination itself. Every answer is advice, none blocks buying; the answers are remembered
 * (phone-check.ts) and a returning buyer sees them in one line with Change.
 */
export default function PhoneCheck({ destination, storePath, messages: m }: Props) {
  const device = useDevice();
  const [answers, setAnswers] = useState<Answers>();
  const [editing, setEditing] = useState(false);
  const [brands, setBrands] = useState<Brands>();
  const [typed, setTyped] = useState('');
  const [askDestination, setAskDestination] = useState(false);
  const modelInput = useRef<HTMLInputElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  // Storage and the browser's languages exist only in the browser: read after hydration.
  useEffect(() => {
    const saved = loadPhoneCheck();
    setAnswers(saved);
    setEditing(!phoneCheckDone(saved));
    setTyped(saved.model ?? '');
    setAskDestination(asksAboutDestination(destination.code, navigator.languages, saved));
  }, [destination.code]);

  useEffect(() => {
    if (!editing || brands) return;
    let live = true;
    void import('../devices/devices.json').then((list) => {
      if (live) setBrands(list.brands);
    });
    return () => {
      live = false;
    };
  }, [editing, brands]);

  useEffect(() => {
    if (editing && answers && phoneCheckDone(answers)) modelInput.current?.focus();
    // Only when Change opens the questions again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [editing]);

  if (!answers) return null;

  const answer = (change: Partial<Answers>) => {
    const next = { ...answers, ...change };
    setAnswers(next);
    savePhoneCheck(next);
  };

  function typeModel(text: string) {
    setTyped(text);
    const found = brands && findModel(brands, text);
    if (found) answer({ model: found });
  }
  // Leaving the field with a name the list does not have: said as it is, not in our list.
  function leaveModel() {
    if (!brands || !typed.trim()) return;
    if (!findModel(brands, typed)) answer({ model: null });
  }

  const confirmDestination = () => {
    if (!destination.code) return;
    answer({ destinationsConfirmed: [...answers.destinationsConfirmed, destination.code] });
    setAskDestination(false);
    // The button goes away: focus stays in the step, on its heading.
    heading.current?.focus();
  };

  const modelResult =
    answers.model === undefined ? '' : answers.model === null ? m.notInList : fill(m.compatible, { model: answers.model });
  const system = device?.system ?? 'other';

  return (
    <section className="rounded-2xl border border-line p-5" aria-labelledby="phone-check-title" data-phone-check>
      <h2 id="phone-check-title" ref={heading} tabIndex={-1} className="text-lg font-semibold">
        {m.title}
      </h2>
      {askDestination && (
        <div className="mt-3 rounded-xl bg-surface-muted p-4" data-destination-question>
          <p>{fill(m.elsewhere, { country: destination.name })}</p>
          <div className="mt-2 flex flex-wrap items-center gap-x-4 gap-y-2">
            <a href={storePath} className="font-semibold text-brand underline">
              {m.elsewhereStore}
            </a>
            <button
              type="button"
              onClick={confirmDestination}
              className="rounded-full border border-line px-4 py-1.5 text-sm font-semibold"
            >
              {fill(m.elsewhereRight, { country: destination.name })}
            </button>
          </div>
        </div>
      )}
      {!editing && answers.lock ? (
        <p className="mt-2 flex flex-wrap items-center gap-x-3" data-phone-check-summary>
          <span>{fill(m.summary, { model: answers.model ?? m.summaryUnlisted, lock: m[LOCK_SUMMARY[answers.lock]] })}</span>
          <button type="button" onClick={() => setEditing(true)} className="font-semibold text-brand underline">
            {m.change}
          </button>
        </p>
      ) : (
        <>
          <p className="mt-2 text-sm text-ink-muted">{m.intro}</p>
          <div className="mt-4">
            <label htmlFor="phone-model" className="block font-semibold">
              {m.modelLabel}
            </label>
            <p id="phone-model-hint" className="text-sm text-ink-muted">
              {m.modelHint}
            </p>
            <input
              id="phone-model"
              ref={modelInput}
              type="text"
              list="phone-models"
              autoComplete="off"
              value={typed}
              onChange={(event) => typeModel(event.target.value)}
              onBlur={leaveModel}
              aria-describedby="phone-model-hint phone-model-result"
              className="mt-1 w-full rounded-xl border border-line bg-surface px-3 py-2"
            />
            <datalist id="phone-models">
              {brands &&
                Object.entries(brands).flatMap(([brand, models]) =>
                  models.map((model) => <option key={`${brand} ${model}`} value={model} />),
                )}
            </datalist>
            <button
              type="button"
              onClick={() => {
                setTyped('');
                answer({ model: null });
              }}
              className="mt-2 text-sm font-semibold text-brand underline"
              data-not-listed
            >
              {m.notListed}
            </button>
            <p id="phone-model-result" role="status" className="mt-2" data-model-result>
              {modelResult}
            </p>
          </div>
          <fieldset className="mt-4">
            <legend className="font-semibold">{m.lockLegend}</legend>
            {system !== 'android' && <p className="mt-1 text-sm">{m.whereIos}</p>}
            {system !== 'ios' && <p className="mt-1 text-sm">{m.whereAndroid}</p>}
            <div className="mt-2 flex flex-wrap gap-x-5 gap-y-2">
              {LOCK_ANSWERS.map((lock) => (
                <label key={lock} className="flex items-center gap-2">
                  <input
                    type="radio"
                    name="carrier-lock"
                    value={lock}
                    checked={answers.lock === lock}
                    onChange={() => answer({ lock })}
                    className="size-4"
                  />
                  {m[lock]}
                </label>
              ))}
            </div>
            <p role="status" className="mt-2" data-lock-advice>
              {answers.lock ? m[LOCK_ADVICE[answers.lock]] : ''}
            </p>
          </fieldset>
        </>
      )}
    </section>
  );
}
