import { StandInRefusal } from '../refusal.ts';
import { randomBytes, randomUUID } from 'node:crypto';
import type { StandInBundle } from './catalogue.ts';

/**
 * The stand-in's state, in eSIM Go's terms and field names (docs.esim-go.com, API v2.5; the v2.4
 * OpenAPI schema's shapes): the organisation's prepaid balance, orders, eSIMs and their bundle
 * assignments, the eSIM's life on a phone, and the callbacks these send. In memory only. Where the
 * docs are silent (error wording and statuses, what a revoke's validate answers) the choice is marked.
 */

/** An eSIM Go error answer: the HTTP status and `{ message }` (guides/rate_limits: 'All error responses use the same JSON structure'). */
export class EsimGoRefusal extends StandInRefusal<number> {
  get status(): number {
    return this.code;
  }
}

/** Refusals the docs describe; their wording is ours (the docs give none), their statuses the documented ones where given. */
const REFUSE = {
  badRequest: (why: string) => new EsimGoRefusal(400, why),
  noBundle: (name: string) => new EsimGoRefusal(400, `Bundle ${name} not found`),
  // Create orders: 'Total will be deducted from your Organisation's balance'; the status is our guess.
  noBalance: () => new EsimGoRefusal(400, 'Insufficient balance to complete this order'),
  // 403: 'the ICCID is not accessible by the user' (every /esims/{iccid} call's documented 403).
  notAccessible: (iccid: string) => new EsimGoRefusal(403, `ICCID ${iccid} is not accessible by the user`),
  incompatible: (name: string, iccid: string) => new EsimGoRefusal(400, `Bundle ${name} is not compatible with eSIM ${iccid}`),
  noReference: (reference: string) => new EsimGoRefusal(404, `No eSIMs found for reference ${reference}`),
  noOrder: (reference: string) => new EsimGoRefusal(404, `Order ${reference} not found`),
  notOnEsim: (name: string, iccid: string) => new EsimGoRefusal(404, `Bundle ${name} not found on eSIM ${iccid}`),
  // Revoke applied Bundle: 'If the bundle assignment has started ... it cannot be ... taken as a credit.'
  started: (name: string) => new EsimGoRefusal(400, `Bundle ${name} cannot be refunded: it has been started`),
  alreadySuspended: () => new EsimGoRefusal(400, 'eSIM is already suspended'),
  notSuspended: () => new EsimGoRefusal(400, 'eSIM is not suspended'),
  // guides/suspend_unsuspend: policy enforcement suspensions 'cannot be reversed via the API'.
  policy: () => new EsimGoRefusal(403, 'eSIM was suspended by policy enforcement and cannot be unsuspended via the API'),
  deactivated: () => new EsimGoRefusal(400, 'eSIM is deactivated'),
};

/** guides/bundle_status's states. */
export type BundleState = 'processing' | 'queued' | 'active' | 'depleted' | 'expired' | 'revoked' | 'lapsed';

interface StandInAssignment {
  id: string;
  bundle: StandInBundle;
  initialQuantity: number;
  remainingQuantity: number;
  assignedAt: Date;
  /** '<orderReference>-<n>', as the docs' examples show assignment references. */
  reference: string;
  state: BundleState;
  startTime: Date | null;
  endTime: Date | null;
  /** What it was bought at, USD: what a refund gives back. */
  pricePerUnit: number;
  /** Utilisation callbacks already sent (1, 50, 80, 100 % used: Notifications, eSIM Usage). */
  alerted: Set<number>;
}

/** profileStatus (Get eSIM details; Profile Status Change): Released until a phone takes it, Released again once deleted. */
export type ProfileStatus = 'Released' | 'Downloaded' | 'Installed';

interface StandInEsim {
  iccid: string;
  matchingId: string;
  pin: string;
  puk: string;
  profileStatus: ProfileStatus;
  firstInstalledAt: Date | null;
  /** v2.5's eSIM state. */
  state: 'Active' | 'Suspended' | 'Deactivated';
  suspendedBy: 'partner' | 'policy' | null;
  customerRef: string;
  assignedDate: Date;
  lastAction: string;
  actionDate: Date;
  provider: StandInBundle['provider'];
  assignments: StandInAssignment[];
  /** False once the returns process took it (Revoke applied Bundle): 'you will no longer be able to access it'. */
  inAccount: boolean;
  firstUseSent: boolean;
}

interface OrderLine {
  type: 'bundle';
  item: string;
  quantity: number;
  subTotal: number;
  pricePerUnit: number;
  iccids: string[];
  AllowReassign: boolean;
}

interface StandInOrder {
  orderReference: string;
  createdDate: Date;
  lines: OrderLine[];
  total: number;
  sourceIP: string;
  /** Its install details answer 503 'Processing' until then. */
  readyAt: number;
}

/** A callback body before it is serialised and signed (eSIM Usage Callback V3; Notifications). */
export type CallbackBody = Record<string, unknown>;

export interface EsimStoreOptions {
  bundles: readonly StandInBundle[];
  smdpAddress: string;
  /** USD. */
  balanceUsd: number;
  /** How long an order's bundles stay 'processing' (Create orders: 'allow for up to 10 minutes'). */
  processingMs: number;
  /** Sends a callback; those of one eSIM are to arrive in the order sent. */
  notify: (body: CallbackBody, iccid: string) => void;
}

const DAY_MS = 86_400_000;
const BYTES_PER_MB = 1_000_000;
/** The data a bundle puts on an eSIM, in bytes (an unlimited one: 1 GB before its fair-use slowdown, our guess). */
export const bundleBytes = (bundle: Pick<StandInBundle, 'unlimited' | 'dataAmount'>) =>
  (bundle.unlimited ? 1000 : bundle.dataAmount) * BYTES_PER_MB;
/** Revoke applied Bundle: refunds only 'within their permitted refund period, typically 60 days'. */
const REFUND_PERIOD_MS = 60 * DAY_MS;
const THRESHOLDS = [1, 50, 80, 100];

const digits = (n: number) => Array.from(randomBytes(n), (b) => b % 10).join('');
const cents = (usd: number) => Math.round(usd * 100) / 100;
const iso = (date: Date) => date.toISOString();

export function createEsimGoStore(options: EsimStoreOptions) {
  const esims = new Map<string, StandInEsim>();
  const orders: StandInOrder[] = [];
  let balance = options.balanceUsd;
  let refundsEnabled = true;
  let assignmentIds = 215_009_000;

  const bundleNamed = (name: unknown) => options.bundles.find((b) => b.name === name);
  const inAccount = (iccid: string) => {
    const esim = esims.get(iccid);
    if (!esim?.inAccount) throw REFUSE.notAccessible(iccid);
    return esim;
  };
  const stateOf = (a: StandInAssignment): BundleState => (a.state === 'processing' && Date.now() >= readyAtOf(a) ? 'queued' : a.state);
  const readyAtOf = (a: StandInAssignment) => orders.find((o) => a.reference.startsWith(o.orderReference))?.readyAt ?? 0;
  const touched = (esim: StandInEsim, action: string) => {
    esim.lastAction = action;
    esim.actionDate = new Date();
  };

  function newEsim(provider: StandInBundle['provider']): StandInEsim {
    let iccid: string;
    do iccid = `8944${digits(15)}`;
    while (esims.has(iccid));
    const now = new Date();
    const esim: StandInEsim = {
      iccid,
      matchingId: `${randomBytes(2).toString('hex')}-${randomBytes(3).toString('hex')}-${randomBytes(4).toString('hex')}`.toUpperCase(),
      pin: digits(4),
      puk: digits(8),
      profileStatus: 'Released',
      firstInstalledAt: null,
      state: 'Active',
      suspendedBy: null,
      customerRef: '',
      assignedDate: now,
      lastAction: 'Bundle Applied',
      actionDate: now,
      provider,
      assignments: [],
      inAccount: true,
      firstUseSent: false,
    };
    esims.set(iccid, esim);
    return esim;
  }

  function assign(esim: StandInEsim, bundle: StandInBundle, reference: string, processing: boolean): void {
    esim.assignments.push({
      id: String(++assignmentIds),
      bundle,
      // Unlimited bundles: their daily volume (Get Bundle Groups), our choice of what the quantity shows.
      initialQuantity: bundleBytes(bundle),
      remainingQuantity: bundleBytes(bundle),
      assignedAt: new Date(),
      reference: `${reference}-${esim.assignments.length}`,
      state: processing ? 'processing' : 'queued',
      startTime: null,
      endTime: null,
      pricePerUnit: bundle.price,
      alerted: new Set(),
    });
    touched(esim, 'Bundle Applied');
  }

  /** One line of Create orders, checked as eSIM Go documents it (Usage list under Create orders). */
  function checkLine(raw: unknown, assigning: boolean) {
    if (typeof raw !== 'object' || raw === null) throw REFUSE.badRequest('Each order item must be an object');
    const line = raw as Record<string, unknown>;
    if (line['type'] !== 'bundle') throw REFUSE.badRequest('Order item type must be bundle');
    const bundle = bundleNamed(line['item']);
    if (!bundle) throw REFUSE.noBundle(String(line['item']));
    const quantity = line['quantity'];
    if (typeof quantity !== 'number' || !Number.isInteger(quantity) || quantity < 1)
      throw REFUSE.badRequest('quantity must be a whole number above 0');
    const iccids = line['iccids'];
    if (iccids !== undefined && !assigning) throw REFUSE.badRequest('eSIM ICCIDs can only be specified if assign is set to true');
    if (iccids !== undefined && (!Array.isArray(iccids) || iccids.length !== quantity || iccids.some((i) => typeof i !== 'string')))
      throw REFUSE.badRequest('If ICCIDs are provided, quantity is required to match the number of ICCIDs');
    const allowReassign = line['allowReassign'] === true;
    // Each named eSIM must be ours and take the bundle, else (allowReassign) the bundle goes to a new eSIM.
    const targets = ((iccids as string[] | undefined) ?? []).map((iccid) => {
      const esim = inAccount(iccid);
      if (esim.state === 'Deactivated') throw REFUSE.deactivated();
      if (esim.provider === bundle.provider) return esim;
      if (!allowReassign) throw REFUSE.incompatible(bundle.name, iccid);
      return undefined;
    });
    return { bundle, quantity, targets, allowReassign };
  }

  /** Create orders (POST /orders): validate checks all a transaction does and charges nothing (quick_start). */
  function order(body: Record<string, unknown>, sourceIP: string) {
    const type = body['type'];
    if (type !== 'validate' && type !== 'transaction') throw REFUSE.badRequest('type must be validate or transaction');
    if (!Array.isArray(body['order']) || body['order'].length === 0) throw REFUSE.badRequest('order must list at least one item');
    // Bought into inventory (assign false) is eSIM Go's other way to buy; the stand-in does not keep an inventory.
    if (body['assign'] !== true) throw REFUSE.badRequest('stand-in: only orders with assign true are simulated');
    const lines = body['order'].map((raw) => checkLine(raw, true));
    const total = cents(lines.reduce((sum, l) => sum + l.bundle.price * l.quantity, 0));
    if (total > balance + 1e-9) throw REFUSE.noBalance();
    const createdDate = new Date();
    const answerLine = (l: (typeof lines)[number], iccids: string[]): OrderLine => ({
      type: 'bundle',
      item: l.bundle.name,
      quantity: l.quantity,
      subTotal: cents(l.bundle.price * l.quantity),
      pricePerUnit: l.bundle.price,
      iccids,
      AllowReassign: l.allowReassign,
    });
    if (type === 'validate') {
      const order = lines.map((l) => {
        const { iccids: _, ...line } = answerLine(l, []);
        return line;
      });
      return { order, total, valid: true, currency: 'USD', createdDate: iso(createdDate), assigned: true };
    }
    balance = cents(balance - total);
    const orderReference = randomUUID();
    const placed: StandInOrder = { orderReference, createdDate, lines: [], total, sourceIP, readyAt: Date.now() + options.processingMs };
    for (const line of lines) {
      const targets = line.targets.length > 0 ? line.targets : Array.from({ length: line.quantity }, () => undefined);
      const iccids = targets.map((target) => {
        const esim = target ?? newEsim(line.bundle.provider);
        assign(esim, line.bundle, orderReference, options.processingMs > 0);
        return esim.iccid;
      });
      placed.lines.push(answerLine(line, iccids));
    }
    orders.push(placed);
    return orderAnswer(placed);
  }

  function orderAnswer(placed: StandInOrder, withEsims = true) {
    return {
      order: placed.lines.map((line) => ({
        ...(withEsims && {
          esims: line.iccids.map((iccid) => ({ iccid, matchingId: esims.get(iccid)!.matchingId, smdpAddress: options.smdpAddress })),
        }),
        ...line,
      })),
      total: placed.total,
      currency: 'USD',
      status: 'completed',
      statusMessage: `Order completed: ${placed.lines.reduce((n, l) => n + l.iccids.length, 0)} eSIMs assigned`,
      orderReference: placed.orderReference,
      createdDate: iso(placed.createdDate),
      assigned: true,
      sourceIP: placed.sourceIP,
    };
  }

  /** List orders: page, limit, createdAt with gte:/lte:/gt:/lt:/eq: (release notes 2.2.0), includeIccids. */
  function listOrders(query: URLSearchParams) {
    const bounds = query.getAll('createdAt').map((value) => {
      const [op, at] =
        value.includes(':') && /^(gte|lte|gt|lt|eq):/.test(value)
          ? [value.slice(0, value.indexOf(':')), value.slice(value.indexOf(':') + 1)]
          : ['eq', value];
      const ms = Date.parse(at!);
      if (Number.isNaN(ms)) throw REFUSE.badRequest(`createdAt ${value} is not a time`);
      return { op, ms };
    });
    const test = (ms: number, { op, ms: at }: { op: string; ms: number }) =>
      op === 'gte' ? ms >= at : op === 'lte' ? ms <= at : op === 'gt' ? ms > at : op === 'lt' ? ms < at : ms === at;
    const listed = orders.filter((o) => bounds.every((b) => test(o.createdDate.getTime(), b)));
    const { page, size, pageCount } = paging(query, 'limit', listed.length, 10);
    const includeIccids = query.get('includeIccids') === 'true';
    return {
      orders: listed.slice((page - 1) * size, page * size).map((o) => {
        const answer = orderAnswer(o, includeIccids);
        return includeIccids ? answer : { ...answer, order: answer.order.map(({ iccids: _, ...line }) => line) };
      }),
      pageCount,
      rows: listed.length,
    };
  }

  function orderDetail(reference: string) {
    const found = orders.find((o) => o.orderReference === reference);
    if (!found) throw REFUSE.noOrder(reference);
    return orderAnswer(found);
  }

  return {
    order,
    listOrders,
    orderDetail,
    ...createEsimReads({ esims, orders, options, inAccount, stateOf, bundleNamed, touched }),
    ...createEsimChanges({
      options,
      inAccount,
      stateOf,
      touched,
      refund: (usd) => (balance = cents(balance + usd)),
      refundsEnabled: () => refundsEnabled,
    }),
    balance: () => balance,
    setBalance(usd: number) {
      balance = usd;
    },
    setRefundsEnabled(enabled: boolean) {
      refundsEnabled = enabled;
    },
    esim: (iccid: string) => esims.get(iccid),
    get esimCount() {
      return esims.size;
    },
    get orderCount() {
      return orders.length;
    },
    ordersPlaced: () =>
      orders.map((o) => ({
        orderReference: o.orderReference,
        iccids: o.lines.flatMap((l) => l.iccids),
        total: o.total,
        placedAt: o.createdDate,
      })),
  };
}

/** page/perPage (or limit) of a listing: 1-based, as eSIM Go's listings take them. */
function paging(query: URLSearchParams, sizeKey: string, rows: number, defaultSize: number) {
  const page = Number(query.get('page') ?? 1);
  const size = Number(query.get(sizeKey) ?? defaultSize);
  if (!Number.isInteger(page) || page < 1 || !Number.isInteger(size) || size < 1 || size > 1000)
    throw REFUSE.badRequest(`page and ${sizeKey} must be whole numbers above 0`);
  return { page, size, pageCount: Math.max(1, Math.ceil(rows / size)) };
}

type Shared = {
  esims: Map<string, StandInEsim>;
  orders: StandInOrder[];
  options: EsimStoreOptions;
  inAccount: (iccid: string) => StandInEsim;
  stateOf: (a: StandInAssignment) => BundleState;
  bundleNamed: (name: unknown) => StandInBundle | undefined;
  touched: (esim: StandInEsim, action: string) => void;
};

/** The eSIM reads: List eSIMs, Get eSIM details, Get eSIM Install Details, the bundles applied, compatibility. */
function createEsimReads({ esims, orders, options, inAccount, stateOf, bundleNamed, touched }: Shared) {
  const assignmentAnswer = (a: StandInAssignment) => ({
    id: a.id,
    callTypeGroup: 'data',
    initialQuantity: a.initialQuantity,
    remainingQuantity: a.remainingQuantity,
    assignmentDateTime: iso(a.assignedAt),
    assignmentReference: a.reference,
    bundleState: stateOf(a),
    unlimited: a.bundle.unlimited,
    // v2.3 List Bundles: the start 'will not be displayed in response if bundle has not been started'.
    ...(a.startTime && { startTime: iso(a.startTime) }),
    ...(a.endTime && { endTime: iso(a.endTime) }),
  });

  return {
    /** List eSIMs: filterBy (iccid, customerRef, lastAction, actionDate, assignedDate) and filter; a 'like' search unless 'eq:' (release notes 2.2.0). */
    listEsims(query: URLSearchParams) {
      const by = query.get('filterBy');
      const filter = query.get('filter') ?? '';
      const fields: Record<string, (e: StandInEsim) => string> = {
        iccid: (e) => e.iccid,
        customerRef: (e) => e.customerRef,
        lastAction: (e) => e.lastAction,
        actionDate: (e) => iso(e.actionDate),
        assignedDate: (e) => iso(e.assignedDate),
      };
      if (by !== null && !fields[by]) throw REFUSE.badRequest(`filterBy ${by} is not one of ${Object.keys(fields).join(', ')}`);
      const exact = filter.startsWith('eq:');
      const wanted = exact ? filter.slice(3) : filter.toLowerCase();
      const listed = [...esims.values()]
        .filter((e) => e.inAccount && (by === null || (exact ? fields[by]!(e) === wanted : fields[by]!(e).toLowerCase().includes(wanted))))
        .sort((a, b) => (query.get('direction') === 'desc' ? b.iccid.localeCompare(a.iccid) : a.iccid.localeCompare(b.iccid)));
      const perPage = query.get('perPage');
      if (perPage !== null && !['10', '25', '50', '100'].includes(perPage))
        throw REFUSE.badRequest('perPage must be one of 10, 25, 50, 100');
      const page = Number(query.get('page') ?? 1);
      const size = Number(perPage ?? 10);
      return {
        esims: listed.slice((page - 1) * size, page * size).map((e) => ({
          iccid: e.iccid,
          customerRef: e.customerRef,
          lastAction: e.lastAction,
          actionDate: iso(e.actionDate),
          physical: false,
          assignedDate: iso(e.assignedDate),
          state: e.state,
        })),
        pageCount: Math.max(1, Math.ceil(listed.length / size)),
        rows: listed.length,
      };
    },

    /** Update eSIM Details (PUT /esims): the customerRef, from the body or the documented query parameters. */
    updateEsim(body: Record<string, unknown>, query: URLSearchParams) {
      const iccid = body['iccid'] ?? query.get('iccid');
      const customerRef = body['customerRef'] ?? query.get('customerRef');
      if (typeof iccid !== 'string' || typeof customerRef !== 'string') throw REFUSE.badRequest('iccid and customerRef are required');
      if (customerRef.length > 100) throw REFUSE.badRequest('customerRef is longer than 100 characters');
      const esim = inAccount(iccid);
      esim.customerRef = customerRef;
      touched(esim, 'eSIM Updated');
      return { status: 'success' };
    },

    /** Get eSIM details (eSIMDetailsResponse, v2.5 `state`): firstInstalledDateTime in milliseconds. */
    esimDetails(iccid: string) {
      const esim = inAccount(iccid);
      return {
        iccid: esim.iccid,
        pin: esim.pin,
        puk: esim.puk,
        matchingId: esim.matchingId,
        smdpAddress: options.smdpAddress,
        profileStatus: esim.profileStatus,
        ...(esim.firstInstalledAt && { firstInstalledDateTime: esim.firstInstalledAt.getTime() }),
        customerRef: esim.customerRef,
        state: esim.state,
      };
    },

    /** Get eSIM Install Details: JSON (one object for one eSIM, as the docs' example; an array for more) or CSV. */
    assignments(reference: string | null, json: boolean): { processing: true } | { processing: false; body: unknown } {
      if (!reference) throw REFUSE.badRequest('reference is required');
      const order = orders.find((o) => o.orderReference === reference);
      if (!order) throw REFUSE.noReference(reference);
      if (Date.now() < order.readyAt) return { processing: true };
      const list = order.lines
        .flatMap((l) => l.iccids)
        .map((iccid) => esims.get(iccid)!)
        .filter((e) => e.inAccount)
        .map((e) => ({
          iccid: e.iccid,
          matchingId: e.matchingId,
          smdpAddress: options.smdpAddress,
          profileStatus: e.profileStatus,
          pin: e.pin,
          puk: e.puk,
          ...(e.firstInstalledAt && { firstInstalledDateTime: iso(e.firstInstalledAt) }),
        }));
      if (!json)
        return {
          processing: false,
          body: ['ICCID,Matching ID,RSP URL', ...list.map((e) => `${e.iccid},${e.matchingId},${e.smdpAddress}`)].join('\n'),
        };
      return { processing: false, body: list.length === 1 ? list[0] : list };
    },

    /** List Bundles applied to eSIM: depleted, expired, lapsed and revoked ones only with includeUsed (guides/bundle_status). */
    bundlesOf(iccid: string, query: URLSearchParams) {
      const esim = inAccount(iccid);
      const limit = Number(query.get('limit') ?? 15);
      if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw REFUSE.badRequest('limit must be between 1 and 200');
      const used = query.get('includeUsed') === 'true';
      const shown = esim.assignments.filter((a) => used || ['processing', 'queued', 'active'].includes(stateOf(a))).slice(-limit);
      const names = [...new Set(shown.map((a) => a.bundle.name))];
      return {
        bundles: names.map((name) => {
          const of = shown.filter((a) => a.bundle.name === name);
          return { name, description: of[0]!.bundle.description, assignments: of.map(assignmentAnswer) };
        }),
      };
    },

    /** Get applied Bundle status: 'the status bundle with the latest assignment'. */
    bundleStatus(iccid: string, name: string) {
      const latest = inAccount(iccid)
        .assignments.filter((a) => a.bundle.name === name)
        .at(-1);
      if (!latest) throw REFUSE.notOnEsim(name, iccid);
      return { assignments: [assignmentAnswer(latest)] };
    },

    /** Check eSIM and Bundle Compatibility: the same provider (catalogue.ts). */
    compatible(iccid: string, name: string) {
      const esim = inAccount(iccid);
      const bundle = bundleNamed(name);
      if (!bundle) throw REFUSE.noBundle(name);
      return { compatible: bundle.provider === esim.provider };
    },
  };
}

type Changes = {
  options: EsimStoreOptions;
  inAccount: (iccid: string) => StandInEsim;
  stateOf: (a: StandInAssignment) => BundleState;
  touched: (esim: StandInEsim, action: string) => void;
  refund: (usd: number) => void;
  refundsEnabled: () => boolean;
};

/** The eSIM's changes: revoking bundles, suspending, and what a phone does (install, use data, expire), with their callbacks. */
function createEsimChanges({ options, inAccount, stateOf, touched, refund, refundsEnabled }: Changes) {
  const UNUSED = ['processing', 'queued'];

  /**
   * Revoke applied Bundle (DELETE /esims/{iccid}/bundles/{name}?type&refundToBalance): 'the oldest
   * unused bundle', else the latest one. Refunded only when unused, within 60 days, and refunds are
   * enabled ('disabled by default ... Without this feature enabled, this endpoint will only revoke').
   * A refund asked of a started bundle is refused. type=validate says what a transaction would do
   * (the docs: 'will provide options for the revoke and the behaviours'; this wording is ours).
   * With no bundle left on an uninstalled eSIM, the returns process takes it from the account at once.
   */
  function revoke(iccid: string, name: string, query: URLSearchParams) {
    const esim = inAccount(iccid);
    const type = query.get('type') ?? 'transaction';
    if (type !== 'validate' && type !== 'transaction') throw REFUSE.badRequest('type must be validate or transaction');
    const refundAsked = query.get('refundToBalance') === 'true';
    const of = esim.assignments.filter((a) => a.bundle.name === name && stateOf(a) !== 'revoked');
    const target = of.find((a) => UNUSED.includes(stateOf(a))) ?? of.at(-1);
    if (!target) throw REFUSE.notOnEsim(name, iccid);
    const unused = UNUSED.includes(stateOf(target));
    if (refundAsked && !unused) throw REFUSE.started(name);
    const refunds = refundAsked && refundsEnabled() && Date.now() - target.assignedAt.getTime() <= REFUND_PERIOD_MS;
    if (type === 'validate') {
      return {
        status: refunds ? `Bundle ${name} can be revoked and refunded to balance` : `Bundle ${name} will be revoked without a refund`,
      };
    }
    target.state = 'revoked';
    if (refunds) refund(target.pricePerUnit);
    touched(esim, refunds ? 'Bundle Refund' : 'Bundle Revoked');
    const left = esim.assignments.some((a) => ['processing', 'queued', 'active', 'depleted'].includes(stateOf(a)));
    if (!left && esim.profileStatus === 'Released' && !esim.firstInstalledAt) esim.inAccount = false;
    return { status: refunds ? 'Successfully Revoked Bundle, bundle has been refunded to balance' : 'Successfully Revoked Bundle' };
  }

  /** Suspend or unsuspend an eSIM (POST /esims/{iccid}/suspend { suspend }): 201 with a status (guides/suspend_unsuspend). */
  function suspend(iccid: string, body: Record<string, unknown>) {
    const esim = inAccount(iccid);
    if (typeof body['suspend'] !== 'boolean') throw REFUSE.badRequest('suspend must be true or false');
    if (esim.state === 'Deactivated') throw REFUSE.deactivated();
    if (body['suspend']) {
      if (esim.state === 'Suspended') throw REFUSE.alreadySuspended();
      esim.state = 'Suspended';
      esim.suspendedBy = 'partner';
      return { status: 'eSIM suspended successfully' };
    }
    if (esim.state !== 'Suspended') throw REFUSE.notSuspended();
    if (esim.suspendedBy === 'policy') throw REFUSE.policy();
    esim.state = 'Active';
    esim.suspendedBy = null;
    return { status: 'eSIM unsuspended successfully' };
  }

  /** The bundle callback's `bundle` (BundleAlert, V3 fields). */
  const bundleOf = (a: StandInAssignment) => ({
    id: a.id,
    reference: a.reference,
    name: a.bundle.name,
    description: a.bundle.description,
    initialQuantity: a.initialQuantity,
    remainingQuantity: a.remainingQuantity,
    startTime: a.startTime && iso(a.startTime),
    endTime: a.endTime && iso(a.endTime),
    unlimited: a.bundle.unlimited,
  });

  /** A phone takes the eSIM: Downloaded, Installed, or Released again (deleted); a Profile Status Change callback each. */
  function install(iccid: string, stage: ProfileStatus): void {
    const esim = inAccount(iccid);
    if (stage === 'Released' && !esim.firstInstalledAt && esim.profileStatus === 'Released')
      throw new Error(`stand-in: eSIM ${iccid} is on no phone`);
    if (esim.profileStatus === stage) return;
    esim.profileStatus = stage;
    if (stage === 'Installed') esim.firstInstalledAt ??= new Date();
    // Notifications, Profile Status Change: field names are not shown by the docs (our reading: iccid, profileStatus).
    options.notify({ alertType: 'ProfileStatusChange', iccid, profileStatus: stage, timestamp: iso(new Date()) }, iccid);
  }

  /**
   * The phone uses this much data: from the bundle in use, then the next queued one, which starts
   * then (Notifications, First Use: 'the bundle duration has started'). Installs it first if no
   * phone has it. A Utilisation callback at 1, 50, 80 and 100 % of each bundle; used up: depleted.
   */
  function useData(iccid: string, bytes: number): void {
    const esim = inAccount(iccid);
    if (esim.state !== 'Active') throw new Error(`stand-in: eSIM ${iccid} is ${esim.state}: it carries no data`);
    if (esim.profileStatus !== 'Installed') install(iccid, 'Installed');
    let left = bytes;
    while (left > 0) {
      const current = esim.assignments.find((a) => stateOf(a) === 'active') ?? esim.assignments.find((a) => UNUSED.includes(stateOf(a)));
      if (!current) throw new Error(`stand-in: eSIM ${iccid} has no data left`);
      if (current.state !== 'active') {
        current.state = 'active';
        current.startTime = new Date();
        current.endTime = new Date(Date.now() + current.bundle.duration * DAY_MS);
        if (!esim.firstUseSent) {
          esim.firstUseSent = true;
          options.notify({ alertType: 'FirstUse', iccid, bundle: bundleOf(current) }, iccid);
        }
      }
      const used = Math.min(left, current.remainingQuantity);
      current.remainingQuantity -= used;
      left -= used;
      const percent = ((current.initialQuantity - current.remainingQuantity) / current.initialQuantity) * 100;
      const crossed = THRESHOLDS.filter((t) => percent >= t && !current.alerted.has(t));
      for (const t of crossed) current.alerted.add(t);
      if (crossed.length > 0) options.notify({ iccid, alertType: 'Utilisation', bundle: bundleOf(current) }, iccid);
      if (current.remainingQuantity === 0) current.state = 'depleted';
    }
  }

  /** The started bundles' validity ends now ('expired: the bundle duration has been exceeded'). */
  function expire(iccid: string): void {
    const esim = inAccount(iccid);
    const started = esim.assignments.filter((a) => a.state === 'active' || a.state === 'depleted');
    if (started.length === 0) throw new Error(`stand-in: eSIM ${iccid} has no started bundle to expire`);
    for (const a of started) {
      a.state = 'expired';
      a.endTime = new Date();
    }
  }

  /** eSIM Go suspends the eSIM for a policy breach (guides/suspend_unsuspend): the API cannot lift it. */
  function policySuspend(iccid: string): void {
    const esim = inAccount(iccid);
    esim.state = 'Suspended';
    esim.suspendedBy = 'policy';
  }

  return { revoke, suspend, install, useData, expire, policySuspend };
}
