import { useStore } from '@nanostores/react';
import { useEffect, type ReactNode } from 'react';
import { loginUrl } from './redirect.ts';
import { $session } from './session.ts';

interface Props {
  loginPath: string;
  loadingLabel: string;
  children?: ReactNode;
}

/**
 * The login guard (spec 2 and 4): the page's content stays hidden until the auth state is
 * known; a signed-out visitor goes to the localized login and comes back here afterwards (to
 * the same part of the page: an alert e-mail's /profile#alerts).
 * It makes the only navigation when a session ends, also on purpose (session.ts endSession).
 */
export default function AuthGuard({ loginPath, loadingLabel, children }: Props) {
  const session = useStore($session);
  useEffect(() => {
    if (session.status === 'signedOut') {
      window.location.replace(
        session.leaveTo ?? loginUrl(loginPath, window.location.pathname + window.location.search + window.location.hash),
      );
    }
  }, [session, loginPath]);

  if (session.status === 'signedIn') return <>{children}</>;
  return (
    <p role="status" className="py-12 text-center text-ink-muted">
      {loadingLabel}
    </p>
  );
}
