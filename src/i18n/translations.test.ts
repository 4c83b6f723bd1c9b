import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPS_LOCALES } from '../config/site.ts';
import { DEFAULT_LOCALE, LOCALE_CODES } from './locales.ts';

/**
 * The translation check: every key of the English source exists in all 12 languages,
 * no language has a key English lacks, placeholders match, plural forms cover the
 * language's own categories (Arabic six, Polish and Russian four, Japanese one), and
 * nothing is left equal to English unless the reviewed allow-list says it really is the same.
 */
const LOCALES_DIR = join(import.meta.dirname, '../../locales');
const PLURAL_SUFFIX = /_(zero|one|two|few|many|other)$/;
/** The back office's namespace: English and German only (DESIGN 8). */
const OPS_NAMESPACE = 'ops:';

type Flat = Map<string, string>;

function flatten(value: unknown, prefix: string, out: Flat): Flat {
  if (typeof value === 'string') out.set(prefix, value);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix.endsWith(':') ? prefix + k : `${prefix}.${k}`, out);
  } else throw new Error(`${prefix} is neither a string nor an object`);
  return out;
}

function load(locale: string): Flat {
  const out: Flat = new Map();
  for (const file of readdirSync(join(LOCALES_DIR, locale)).filter((f) => f.endsWith('.json'))) {
    flatten(JSON.parse(readFileSync(join(LOCALES_DIR, locale, file), 'utf8')), `${file.slice(0, -5)}:`, out);
  }
  return out;
}

/** Keys with plural suffixes collapse to their base key with the set of categories present. */
function shape(flat: Flat) {
  const plain = new Set<string>();
  const plurals = new Map<string, Set<string>>();
  for (const key of flat.keys()) {
    const match = key.match(PLURAL_SUFFIX);
    if (match) {
      const base = key.slice(0, -match[0].length);
      if (!plurals.has(base)) plurals.set(base, new Set());
      plurals.get(base)!.add(match[1]!);
    } else plain.add(key);
  }
  return { plain, plurals };
}

const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)[^}]*\}\}/g)].map((m) => m[1]).sort();

const allowList: Record<string, string[]> = JSON.parse(readFileSync(join(LOCALES_DIR, 'same-as-english.json'), 'utf8'));
const english = load(DEFAULT_LOCALE);
const englishShape = shape(english);

describe('translation check', () => {
  it('has a folder for each of the 12 languages and nothing else', () => {
    const folders = readdirSync(LOCALES_DIR, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    expect(folders.sort()).toEqual([...LOCALE_CODES].sort());
  });

  it('English has at least one key and no empty string', () => {
    expect(english.size).toBeGreaterThan(0);
    for (const [key, value] of english) expect(value.trim(), key).not.toBe('');
  });

  for (const locale of LOCALE_CODES.filter((l) => l !== DEFAULT_LOCALE)) {
    describe(locale, () => {
      const messages = load(locale);
      const { plain, plurals } = shape(messages);
      const sameAsEnglish = new Set(allowList[locale] ?? []);
      const hasOps = (OPS_LOCALES as readonly string[]).includes(locale);

      it('has every English key and no key English lacks', () => {
        // The back office's strings (ops:) only in its languages (OPS_LOCALES), and there all of them.
        const wanted = (key: string) => hasOps || !key.startsWith(OPS_NAMESPACE);
        expect([...plain].sort()).toEqual([...englishShape.plain].filter(wanted).sort());
        expect([...plurals.keys()].sort()).toEqual([...englishShape.plurals.keys()].filter(wanted).sort());
      });

      it('has exactly the plural forms the language needs', () => {
        const needed = new Intl.PluralRules(locale).resolvedOptions().pluralCategories.slice().sort();
        for (const [base, categories] of plurals) expect([...categories].sort(), base).toEqual(needed);
      });

      it('keeps the placeholders of the English text', () => {
        for (const [key, value] of messages) {
          const match = key.match(PLURAL_SUFFIX);
          if (!match) {
            expect(placeholders(value), key).toEqual(placeholders(english.get(key) ?? ''));
            continue;
          }
          // A plural form may spell its number out ('دولتان', two countries): {{count}} is optional there.
          const source = placeholders(english.get(key.slice(0, -match[0].length) + '_other') ?? '');
          expect(
            placeholders(value).filter((p) => p !== 'count'),
            key,
          ).toEqual(source.filter((p) => p !== 'count'));
        }
      });

      it('translates every string (a reviewed allow-list excepted)', () => {
        const untranslated = [...messages].filter(([key, value]) => value.trim() === '' || english.get(key) === value);
        expect(untranslated.map(([key]) => key).filter((key) => !sameAsEnglish.has(key))).toEqual([]);
      });

      it('allow-lists only strings that really are equal to English', () => {
        for (const key of sameAsEnglish) expect(messages.get(key), key).toBe(english.get(key));
      });
    });
  }
});
