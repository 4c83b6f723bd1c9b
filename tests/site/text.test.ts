import { describe, expect, it } from 'vitest';
import { builtPages } from '../support/dist.ts';

describe('rendered text', () => {
  it('leaves no translation placeholder unfilled on any page', () => {
    const unfilled = builtPages()
      .filter((p) => /\{\{\s*\w+\s*\}\}/.test(p.doc.querySelector('body')!.text + p.doc.querySelector('title')!.text))
      .map((p) => p.path);
    expect(unfilled).toEqual([]);
  });
});
