/**
 * Fills {{name}} placeholders known only in the browser (an e-mail address). Its own module:
 * islands import it without t(), which would bring every language's resources along.
 */
export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (match, name: string) => values[name] ?? match);
}

/**
 * The plural form of a counted message for `count` (forms from pluralForms(): one per Intl
 * plural category of the language), with {{count}} filled in.
 */
export function fillPlural(forms: Record<string, string>, locale: string, count: number): string {
  return fill(forms[new Intl.PluralRules(locale).select(count)] ?? forms.other ?? '', { count: String(count) });
}
