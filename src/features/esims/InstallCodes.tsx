import { useEffect, useId, useState } from 'react';
import type { InstallCodes as Codes } from '../../contract/shop-api.ts';
import ManualCode from './ManualCode.tsx';
import type { InstallCodesMessages } from './messages.ts';
import { offersOneTapInstall } from './platform.ts';

interface Props {
  install: Codes;
  messages: InstallCodesMessages;
  /** Our install guide in the page's language. */
  guidePath: string;
}

/**
 * How to install an eSIM (DESIGN 6): the QR code of the LPA string, the SM-DP+ address and the
 * activation code each with a copy button, on iPhone Apple's one-tap link, and our guide.
 * Codes always read left to right, also on Arabic pages.
 */
export default function InstallCodes({ install, messages: m, guidePath }: Props) {
  const headingId = useId();
  // Known only in the browser: the server-rendered page never offers the link.
  const [oneTap, setOneTap] = useState(false);
  useEffect(() => setOneTap(offersOneTapInstall(navigator)), []);

  return (
    <section aria-labelledby={headingId} className="rounded-xl bg-surface-muted p-4" data-install-codes>
      <h2 id={headingId} className="text-lg font-bold">
        {m.heading}
      </h2>
      {oneTap && (
        <a
          href={install.iphoneUrl}
          className="mt-3 inline-block rounded-full bg-brand px-5 py-3 font-semibold text-brand-ink"
          data-iphone-install
        >
          {m.iphoneLink}
        </a>
      )}
      <p className="mt-3 text-sm text-ink-muted">{m.qrInstructions}</p>
      <div
        role="img"
        aria-label={m.qrLabel}
        className="mt-3 w-56 max-w-full rounded-lg bg-white p-2 [&>svg]:h-auto [&>svg]:w-full"
        // Our own server's SVG from the qrcode package (no script, no external reference); the client checked it starts with <svg.
        dangerouslySetInnerHTML={{ __html: install.qrSvg }}
        data-qr-code
      />
      <h3 className="mt-4 font-semibold">{m.manualHeading}</h3>
      <dl className="mt-2 space-y-3">
        <ManualCode label={m.smdpAddress} value={install.smdpAddress} messages={m} name="smdp" />
        <ManualCode label={m.activationCode} value={install.activationCode} messages={m} name="activation" />
      </dl>
      <p className="mt-3 text-sm text-ink-muted">{m.keepPrivate}</p>
      <a href={guidePath} className="mt-3 inline-block font-semibold text-brand underline">
        {m.guideLink}
      </a>
    </section>
  );
}
