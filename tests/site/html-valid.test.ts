import { HtmlValidate } from 'html-validate';
import { describe, expect, it } from 'vitest';
import { builtPages } from '../support/dist.ts';

const validator = new HtmlValidate({
  extends: ['html-validate:recommended'],
  rules: {
    // Tailwind's arbitrary-value classes ([&::-webkit-details-marker]:hidden) are valid class names.
    'no-inline-style': 'off',
    // The theme script must run inline before first paint (ThemeScript.astro).
    'require-sri': 'off',
  },
});

describe('every built page is valid HTML', () => {
  it.each(builtPages().map((p) => [p.path, p.html] as const))('%s', async (_, html) => {
    const report = await validator.validateString(html);
    const messages = report.results.flatMap((r) => r.messages.map((m) => `${m.ruleId}: ${m.message} (line ${m.line})`));
    expect(messages).toEqual([]);
  });
});
