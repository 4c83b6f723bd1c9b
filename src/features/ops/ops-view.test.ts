import { describe, expect, it } from 'vitest';
import { EMPTY_ORDERS_QUERY, readView, viewSearch, type OpsView } from './ops-view.ts';

describe('back office screens in the address', () => {
  it('reads each screen from its query string', () => {
    expect(readView('')).toEqual({ name: 'orders', query: EMPTY_ORDERS_QUERY });
    expect(readView('?order=abc')).toEqual({ name: 'order', id: 'abc' });
    expect(readView('?view=accounts&q=a%40b.example')).toEqual({ name: 'accounts', q: 'a@b.example' });
    expect(readView('?view=dashboard')).toEqual({ name: 'dashboard' });
    expect(readView('?view=support&q=a%40b.example')).toEqual({ name: 'support', id: '', closed: false, q: 'a@b.example' });
    expect(readView('?support=req-1&state=closed')).toEqual({ name: 'support', id: 'req-1', closed: true, q: '' });
    expect(readView('?q=ES-2026-000123&state=paid&attention=1')).toEqual({
      name: 'orders',
      query: { q: 'ES-2026-000123', state: 'paid', from: '', to: '', attention: true, partner: '' },
    });
  });

  it('writes only what is set, and reads back what it wrote', () => {
    const views: OpsView[] = [
      { name: 'orders', query: EMPTY_ORDERS_QUERY },
      { name: 'orders', query: { q: 'a b&c', state: 'refunded', from: '2026-01-01', to: '2026-01-31', attention: true, partner: '' } },
      { name: 'orders', query: { ...EMPTY_ORDERS_QUERY, partner: 'esim-go' } },
      { name: 'order', id: 'id/with?odd&chars' },
      { name: 'accounts', q: 'uid-1' },
      { name: 'dashboard' },
      { name: 'support', id: '', closed: false, q: '' },
      { name: 'support', id: 'req-1', closed: true, q: '' },
      { name: 'support', id: 'req-2', closed: false, q: 'SR-1A2B3C4D' },
    ];
    expect(viewSearch(views[0]!)).toBe('');
    for (const view of views) expect(readView(viewSearch(view))).toEqual(view);
  });

  it('sends the search trimmed, and no empty filter', () => {
    expect(viewSearch({ name: 'orders', query: { ...EMPTY_ORDERS_QUERY, q: '  x@y.example ' } })).toBe('?q=x%40y.example');
  });
});
