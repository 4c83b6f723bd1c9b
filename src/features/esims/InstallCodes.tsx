import { useId } from 'react';
import type { InstallCodes as Codes } from '../../contract/shop-api.ts';
import ManualCode from './ManualCode.tsx';
import type { InstallCodesMessages } from './messages.ts';
import { androidInstallUrl } from './platform.ts';
import { useDevice } from './use-device.ts';

interface Props {
  install: Codes;
  messages: InstallCodesMessages;
  /** Our install guide in the page's language. */
  guidePath: string;
  /** An element naming which eSIM these codes are for, where a page shows several (a cart's payment success). */
  labelledBy?: string | undefined;
}

const linkClass = 'mt-3 inline-block rounded-full bg-brand px-5 py-3 font-semibold text-brand-ink';

/**
 * How to install an eSIM (DESIGN 6, issue 22 item 2), in the order that works on this device: on
 * iPhone with iOS 17.5+ Apple's one-tap link; on Android Chrome Google's link to try, codes beside
 * it; on any other phone the codes to copy, since a phone cannot scan its own screen; on a desktop
 * the QR code first, for the phone that travels. Every path keeps the QR code and the copy buttons.
 * Codes always read left to right, also on Arabic pages.
 */
export default function InstallCodes({ install, messages: m, guidePath, labelledBy }: Props) {
  const headingId = useId();
  // Undefined on the server and while hydrating (the same HTML as the server's): the QR code first.
  const path = useDevice()?.path;
  const onPhone = path === 'iosOneTap' || path === 'androidLink' || path === 'phone';

  const qr = (
    <>
      <p className="mt-3 text-sm text-ink-muted" data-qr-instructions>
        {onPhone ? m.paths.otherPhone : path === 'desktop' ? m.paths.scanWithPhone : m.qrInstructions}
      </p>
      <div
        role="img"
        aria-label={m.qrLabel}
        className="mt-3 w-56 max-w-full rounded-lg bg-white p-2 [&>svg]:h-auto [&>svg]:w-full"
        // Our own server's SVG from the qrcode package (no script, no external reference); the client checked it starts with <svg.
        dangerouslySetInnerHTML={{ __html: install.qrSvg }}
        data-qr-code
      />
    </>
  );
  const manual = (
    <>
      <h3 className="mt-4 font-semibold">{m.manualHeading}</h3>
      {onPhone && (
        <p className="mt-1 text-sm" data-own-screen>
          {m.paths.ownScreen}
        </p>
      )}
      <dl className="mt-2 space-y-3">
        <ManualCode label={m.smdpAddress} value={install.smdpAddress} messages={m} name="smdp" />
        <ManualCode label={m.activationCode} value={install.activationCode} messages={m} name="activation" />
      </dl>
    </>
  );

  return (
    <section
      aria-labelledby={labelledBy ? `${headingId} ${labelledBy}` : headingId}
      className="rounded-xl bg-surface-muted p-4"
      data-install-codes
      data-install-path={path}
    >
      <h2 id={headingId} className="text-lg font-bold">
        {m.heading}
      </h2>
      {path === 'iosOneTap' && (
        <a href={install.iphoneUrl} className={linkClass} data-iphone-install>
          {m.iphoneLink}
        </a>
      )}
      {path === 'androidLink' && (
        <>
          <a href={androidInstallUrl(install.lpa)} className={linkClass} data-android-install>
            {m.paths.androidLink}
          </a>
          <p className="mt-2 text-sm text-ink-muted">{m.paths.androidNote}</p>
        </>
      )}
      <p className="mt-3 text-sm font-semibold" data-dont-delete>
        {m.paths.dontDelete}
      </p>
      {onPhone ? (
        <>
          {manual}
          {qr}
        </>
      ) : (
        <>
          {qr}
          {manual}
        </>
      )}
      <p className="mt-3 text-sm text-ink-muted">{m.keepPrivate}</p>
      <a href={guidePath} className="mt-3 inline-block font-semibold text-brand underline">
        {m.guideLink}
      </a>
    </section>
  );
}
