import { createContext, useContext } from 'react';
import type { OpsRole } from '../../contract/ops-api.ts';
import type { Locale } from '../../i18n/locales.ts';
import type { OpsMessages } from './ops-messages.ts';
import type { OpsView } from './ops-view.ts';

export interface Ops {
  m: OpsMessages;
  locale: Locale;
  role: OpsRole;
  /** The address of a screen (for links: they open in a new tab too). */
  href: (view: OpsView) => string;
  /** Shows a screen in this tab, with its own history entry. */
  go: (view: OpsView) => void;
  /** The login page that brings the operator back here afterwards. */
  loginHref: string;
}

export const OpsContext = createContext<Ops | null>(null);

export function useOps(): Ops {
  const ops = useContext(OpsContext);
  if (!ops) throw new Error('useOps outside OpsApp');
  return ops;
}
