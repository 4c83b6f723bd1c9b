import { describe, expect, it } from 'vitest';
import type { DataKind } from '../../catalogue/schema.ts';
import type { EsimOrder, EsimRow } from '../../server/esims/store.types.ts';
import { esimView } from '../../server/esims/view.ts';
import type { OrderRow } from '../../server/orders/store.types.ts';
import { mapEsimAccessProfile, type EsimAccessProfile } from '../../server/partner/esim-access/schemas.ts';
import { diagnose, fixStepTexts, type Cause } from './diagnosis.ts';
import { myEsimsMessages } from './my-esims-messages.ts';

const NOW = new Date('2026-11-28T12:00:00Z');
const DAY = 86_400_000;
const GB = 2 ** 30;
const en = myEsimsMessages('en');

const TOTAL: DataKind = { kind: 'total' };
const DAILY_SLOWED: DataKind = { kind: 'daily', after: { slowedToKbps: 512 } };
const DAILY_CUT: DataKind = { kind: 'daily', after: 'cut' };

/** An eSIM as the partner answers esim/query (its own field names and state names). */
const profile = (fields: Partial<EsimAccessProfile>): EsimAccessProfile => ({
  esimTranNo: '25112812000001',
  orderNo: 'B25112812000001',
  transactionId: '0b7a2a52-3f5c-4c39-9a57-8f1f2f3c1d11',
  iccid: '8943108170000000001',
  ac: 'LPA:1$rsp.example.test$K2-ABC123',
  esimStatus: 'GOT_RESOURCE',
  smdpStatus: 'RELEASED',
  expiredTime: new Date(NOW.getTime() + 20 * DAY).toISOString(),
  totalVolume: GB,
  orderUsage: 0,
  totalDuration: 7,
  durationUnit: 'DAY',
  apn: 'travel.example',
  ...fields,
});

/** What the owner's My eSIMs gets for that profile: mapped as the adapter does, stored, and viewed as GET /esims does. */
async function viewOf(
  fields: Partial<EsimAccessProfile>,
  { data = TOTAL, state = 'delivered' as OrderRow['state'], replacedBy = null as string | null } = {},
) {
  const p = mapEsimAccessProfile(profile(fields));
  const row = {
    esim_tran_no: p.esimTranNo,
    iccid: p.iccid,
    activation_code: p.activationCode,
    smdp_address: p.smdpAddress,
    matching_id: p.matchingId,
    apn: p.apn,
    status: p.status,
    installed: p.installed,
    install_step: p.installStep,
    install_step_at: NOW,
    expires_at: p.expiresAt,
    total_bytes: p.totalBytes,
    used_bytes: p.usedBytes,
  } as EsimRow;
  const order = {
    id: '0b7a2a52-3f5c-4c39-9a57-8f1f2f3c1d11',
    number: 12,
    kind: 'esim',
    state,
    replaced_by: replacedBy,
    created_at: new Date(NOW.getTime() - DAY),
    plan: {
      id: 'jp-1gb-7d',
      metadata: { dataAmount: { value: 1, unit: 'GB' } },
      validity: 7,
      validityUnit: 'day',
      supportedCountries: ['JP'],
      topUp: true,
      data,
    },
  } as EsimOrder;
  return esimView(order, state === 'delivered' ? row : undefined, { code: 'JP', name: 'Japan', flag: '/flags/JP.svg' }, NOW);
}

const causeOf = async (fields: Partial<EsimAccessProfile>, options?: Parameters<typeof viewOf>[1]) =>
  diagnose(await viewOf(fields, options), NOW.getTime());

describe('the "Not working?" diagnosis, from the partner’s state names', () => {
  const cases: [string, Partial<EsimAccessProfile>, Cause, Parameters<typeof viewOf>[1]?][] = [
    ['released, never downloaded', { esimStatus: 'GOT_RESOURCE', smdpStatus: 'RELEASED' }, 'not_installed'],
    ['downloaded, not installed', { esimStatus: 'GOT_RESOURCE', smdpStatus: 'DOWNLOAD' }, 'downloaded'],
    ['installed, never turned on', { esimStatus: 'GOT_RESOURCE', smdpStatus: 'INSTALLATION' }, 'line_off'],
    ['installed, turned off in the settings', { esimStatus: 'GOT_RESOURCE', smdpStatus: 'DISABLED' }, 'line_off'],
    ['turned on, no data since', { esimStatus: 'GOT_RESOURCE', smdpStatus: 'ENABLED' }, 'no_data'],
    ['in use by the partner’s word, but no data counted', { esimStatus: 'IN_USE', smdpStatus: 'ENABLED', orderUsage: 0 }, 'no_data'],
    ['in use, data flowing', { esimStatus: 'IN_USE', smdpStatus: 'ENABLED', orderUsage: 100 * 2 ** 20 }, 'in_use'],
    [
      'in use on a daily plan, then slowed',
      { esimStatus: 'IN_USE', smdpStatus: 'ENABLED', orderUsage: 100 * 2 ** 20 },
      'slowed',
      { data: DAILY_SLOWED },
    ],
    [
      'in use on a daily plan, then cut',
      { esimStatus: 'IN_USE', smdpStatus: 'ENABLED', orderUsage: 100 * 2 ** 20 },
      'daily_cut',
      { data: DAILY_CUT },
    ],
    ['most of its data used', { esimStatus: 'IN_USE', smdpStatus: 'ENABLED', orderUsage: Math.round(0.85 * GB) }, 'running_out'],
    [
      'its validity ends within a day',
      { esimStatus: 'IN_USE', smdpStatus: 'ENABLED', orderUsage: 2 ** 20, expiredTime: new Date(NOW.getTime() + DAY / 2).toISOString() },
      'running_out',
    ],
    ['used up', { esimStatus: 'USED_UP', smdpStatus: 'ENABLED', orderUsage: GB }, 'used_up'],
    ['deleted before any use', { esimStatus: 'GOT_RESOURCE', smdpStatus: 'DELETED' }, 'deleted'],
    ['deleted after use', { esimStatus: 'IN_USE', smdpStatus: 'DELETED', orderUsage: 2 ** 20 }, 'deleted'],
    ['expired after use', { esimStatus: 'USED_EXPIRED', smdpStatus: 'ENABLED', orderUsage: 2 ** 20 }, 'expired'],
    ['expired unused', { esimStatus: 'UNUSED_EXPIRED', smdpStatus: 'RELEASED' }, 'expired'],
    [
      'past its validity, the partner not told yet',
      { esimStatus: 'IN_USE', smdpStatus: 'ENABLED', orderUsage: 2 ** 20, expiredTime: new Date(NOW.getTime() - 1000).toISOString() },
      'expired',
    ],
    ['paused by the provider', { esimStatus: 'SUSPENDED', smdpStatus: 'ENABLED', orderUsage: 2 ** 20 }, 'suspended'],
    ['cancelled and refunded', { esimStatus: 'CANCEL', smdpStatus: 'RELEASED' }, 'refunded', { state: 'refunded' }],
    ['cancelled and replaced at our cost', { esimStatus: 'CANCEL', smdpStatus: 'RELEASED' }, 'replaced', { replacedBy: 'x' }],
    ['paid, not allocated yet', {}, 'preparing', { state: 'provisioning' }],
  ];
  it.each(cases)('%s: %s', async (_, fields, cause, options) => {
    expect((await causeOf(fields, options)).cause).toBe(cause);
  });

  it('offers what fixes it: the install codes, a top-up, a new plan, support', async () => {
    expect((await causeOf({ smdpStatus: 'RELEASED' })).action).toBe('showCodes');
    expect((await causeOf({ esimStatus: 'USED_UP', smdpStatus: 'ENABLED', orderUsage: GB })).action).toBe('topUp');
    expect((await causeOf({ esimStatus: 'USED_EXPIRED', smdpStatus: 'ENABLED' })).action).toBe('buy');
    // Deleted before it carried data: a new eSIM at our cost; after use, support.
    expect((await causeOf({ smdpStatus: 'DELETED' })).action).toBe('replace');
    expect((await causeOf({ esimStatus: 'IN_USE', smdpStatus: 'DELETED', orderUsage: 2 ** 20 })).action).toBe('support');
    expect((await causeOf({ smdpStatus: 'ENABLED' })).action).toBeNull();
  });
});

describe('the fix’s steps, in the words of the phone it is read on', () => {
  it('names each system’s own settings for a line that is off', async () => {
    const { steps } = await causeOf({ smdpStatus: 'INSTALLATION' });
    for (const system of ['ios', 'android', 'other'] as const)
      expect(fixStepTexts(steps, system, en)).toEqual([en.checklist[system].lineOn, en.checklist[system].dataLine]);
    expect(en.checklist.ios.lineOn).toContain('Mobile Service');
    expect(en.checklist.android.lineOn).toContain('SIMs');
  });

  it('walks through roaming, the data line and the APN for an eSIM on without data, the APN only where the partner names one', async () => {
    const { steps } = await causeOf({ smdpStatus: 'ENABLED' });
    expect(fixStepTexts(steps, 'android', en)).toEqual([
      en.checklist.android.lineOn,
      en.checklist.android.dataLine,
      en.checklist.android.roaming,
      en.checklist.android.apn,
      en.diagnosis.steps.restart,
    ]);
    expect((await causeOf({ smdpStatus: 'ENABLED', apn: '' })).steps).not.toContain('apn');
  });

  it('tells an iPhone and an Android phone where a half-finished download shows, and what to try on a slow connection', async () => {
    const downloaded = (await causeOf({ smdpStatus: 'DOWNLOAD' })).steps;
    expect(fixStepTexts(downloaded, 'ios', en)[0]).toBe(en.diagnosis.steps.downloaded.ios);
    expect(fixStepTexts(downloaded, 'android', en)[0]).toBe(en.diagnosis.steps.downloaded.android);
    const slow = (await causeOf({ esimStatus: 'IN_USE', smdpStatus: 'ENABLED', orderUsage: 2 ** 20 })).steps;
    expect(fixStepTexts(slow, 'ios', en)).toEqual([
      en.diagnosis.steps.airplane,
      en.diagnosis.steps.network.ios,
      en.diagnosis.steps.restart,
    ]);
  });
});
