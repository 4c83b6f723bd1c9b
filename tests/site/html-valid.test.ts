import { HtmlValidate } from 'html-validate';
import { describe, expect, it } from 'vitest';
import { builtPages } from '../support/dist.ts';

const validator = new HtmlValidate({
  extends: ['html-validate:recommended'],
  rules: {
    // Tailwind's arbitrary-value classes ([&::-webkit-details-marker]:hidden) are valid class names.
    'no-inline-style': 'off',
    // The pre-paint script must run inline before first paint (PrePaintScript.astro).
    'require-sri': 'off',
    // React's server markup style, all valid HTML: boolean attributes as disabled="",
    // camelCase attribute names (noValidate, autoComplete) and self-closed void elements.
    'attribute-boolean-style': 'off',
    'attr-case': 'off',
    'void-style': 'off',
  },
});

const ASTRO_ISLAND_STYLE = '<style>astro-island,astro-slot,astro-static-slot{display:contents}</style>';

describe('every built page is valid HTML', () => {
  it.each(builtPages().map((p) => [p.path, p.html] as const))('%s', async (_, html) => {
    // Astro writes this style where islands render; everything else must validate.
    const report = await validator.validateString(html.replaceAll(ASTRO_ISLAND_STYLE, ''));
    const messages = report.results.flatMap((r) => r.messages.map((m) => `${m.ruleId}: ${m.message} (line ${m.line})`));
    expect(messages).toEqual([]);
  });
});
