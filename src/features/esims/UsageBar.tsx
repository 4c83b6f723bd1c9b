import { useId } from 'react';
import { fill } from '../../i18n/fill.ts';
import type { Locale } from '../../i18n/locales.ts';
import { formatBytes, usedShare } from '../../lib/data-size.ts';

interface Props {
  /** An eSIM's usage as the API reads it. */
  usage: { usedBytes: number; totalBytes: number };
  locale: Locale;
  /** myEsim.usageLabel ('Data used') and myEsim.usage ('{{used}} used · {{left}} left of {{total}}'). */
  label: string;
  template: string;
}

/**
 * Data used and left: a bar that fills from the start edge (the right on Arabic pages) and the
 * same in numbers. The bar is a progressbar whose value text is the sentence below it.
 */
export default function UsageBar({ usage: { usedBytes, totalBytes }, locale, label, template }: Props) {
  const textId = useId();
  const share = usedShare(usedBytes, totalBytes);
  const text = fill(template, {
    used: formatBytes(usedBytes, locale),
    left: formatBytes(Math.max(0, totalBytes - usedBytes), locale),
    total: formatBytes(totalBytes, locale),
  });
  const percent = Math.round(share * 100);
  return (
    <div className="mt-3" data-usage>
      <div
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={text}
        aria-describedby={textId}
        className="flex h-3 overflow-hidden rounded-full bg-surface-muted"
        data-usage-bar
      >
        {/* A flex item starts at the inline start: left to right, or right to left in Arabic. */}
        <div className="h-full rounded-full bg-brand" style={{ width: `${share * 100}%` }} data-usage-fill />
      </div>
      <p id={textId} className="mt-1 text-sm" data-usage-text>
        {text}
      </p>
    </div>
  );
}
