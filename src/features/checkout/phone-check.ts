/**
 * "Will it work on my phone?" at checkout (issue 32, item 1): the answers, remembered in this
 * browser so a returning buyer sees them summed up in one line instead of the questions again.
 * One localStorage key; the version is in the value, so a future shape reads an old one as unanswered.
 * Nothing here ever blocks buying: a missing or unreadable answer only means the questions show.
 */
export const PHONE_CHECK_KEY = 'esim.phoneCheck';
const VERSION = 1;

/** Is the phone carrier-locked: the buyer's own answer, after looking in the place we name. */
export type LockAnswer = 'unlocked' | 'locked' | 'unsure';
const LOCK_ANSWERS: readonly LockAnswer[] = ['unlocked', 'locked', 'unsure'];

export interface PhoneCheck {
  /** A model from the device list, or null: "my phone isn't listed". Absent: not answered yet. */
  model?: string | null;
  lock?: LockAnswer;
  /** Destinations (country codes) the buyer confirmed while apparently already there: not asked again. */
  destinationsConfirmed: string[];
}

const EMPTY: PhoneCheck = { destinationsConfirmed: [] };

type Store = Pick<Storage, 'getItem' | 'setItem'>;

/** The remembered answers; none (a first visit, another version, storage blocked or edited by hand) reads as unanswered. */
export function loadPhoneCheck(store: Store | undefined = globalThis.localStorage): PhoneCheck {
  try {
    const raw: unknown = JSON.parse(store?.getItem(PHONE_CHECK_KEY) ?? 'null');
    if (!raw || typeof raw !== 'object' || (raw as { v?: unknown }).v !== VERSION) return { ...EMPTY };
    const { model, lock, destinationsConfirmed } = raw as Record<string, unknown>;
    return {
      ...(typeof model === 'string' || model === null ? { model } : {}),
      ...(LOCK_ANSWERS.includes(lock as LockAnswer) ? { lock: lock as LockAnswer } : {}),
      destinationsConfirmed: Array.isArray(destinationsConfirmed)
        ? destinationsConfirmed.filter((c): c is string => typeof c === 'string')
        : [],
    };
  } catch {
    return { ...EMPTY };
  }
}

/** Remembers the answers; a browser that refuses storage (private mode, full) just asks again next time. */
export function savePhoneCheck(check: PhoneCheck, store: Store | undefined = globalThis.localStorage): void {
  try {
    store?.setItem(PHONE_CHECK_KEY, JSON.stringify({ v: VERSION, ...check }));
  } catch {
    // Not remembered: nothing else depends on it.
  }
}

/** Both phone questions answered: the one-line summary shows instead of them. */
export const phoneCheckDone = (check: PhoneCheck): boolean => check.model !== undefined && check.lock !== undefined;

const normal = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[\s()]+/g, ' ')
    .trim();

/**
 * The device list's model a typed name means, or undefined: the exact name, any case or spacing,
 * with or without its brand ('Samsung Galaxy S24', 'Google Pixel 8', 'Apple iPhone 15').
 */
export function findModel(brands: Record<string, readonly string[]>, typed: string): string | undefined {
  const wanted = normal(typed);
  if (!wanted) return undefined;
  for (const [brand, models] of Object.entries(brands)) {
    for (const model of models) {
      if (normal(model) === wanted || normal(`${brand} ${model}`) === wanted) return model;
    }
  }
  return undefined;
}

/**
 * The country this browser says its user is in: the region of their languages ('ja-JP' → 'JP'),
 * the first one that has a region. A static page cannot know the IP's country without a third-party
 * geo-IP service (and the shop API exposes none), so the browser's own region is all we use;
 * it is a hint, which is why the question is only asked, never acted on.
 */
export function browserRegion(languages: readonly string[]): string | undefined {
  for (const tag of languages) {
    const region = /^[a-z]{2,3}(?:-[a-z]{4})?-([a-z]{2})(?:-|$)/i.exec(tag)?.[1];
    if (region) return region.toUpperCase();
  }
  return undefined;
}

/**
 * Whether to ask "you seem to be in {destination} already — did you mean another?": a country
 * plan (a region's code is no country's: someone in Germany buying Europe may well travel to France)
 * whose country is the browser's region, unless the buyer already said this destination is right.
 */
export function asksAboutDestination(destinationCode: string | undefined, languages: readonly string[], check: PhoneCheck): boolean {
  if (!destinationCode || !/^[A-Z]{2}$/.test(destinationCode)) return false;
  return browserRegion(languages) === destinationCode && !check.destinationsConfirmed.includes(destinationCode);
}
