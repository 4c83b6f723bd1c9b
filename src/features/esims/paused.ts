import type { EsimView } from '../../contract/shop-api.ts';

/** Paused by the provider (the back office's suspend, view.ts esimStatus): neither in use nor ended, and no data meanwhile. */
export const isPaused = (esim: Pick<EsimView, 'status'>): boolean => esim.status === 'suspended';

/**
 * Whether a card says where the eSIM is on the phone (InstallStepLine). Not while it is paused: the
 * phone still has it turned on, which beside "Paused" reads as working (in Arabic the step "enabled"
 * is the very word of the status "Active": issue 46 item 8). The paused notice says what to do instead.
 */
export const showsInstallStep = (esim: Pick<EsimView, 'status' | 'installStep'>): boolean => esim.installStep !== null && !isPaused(esim);
