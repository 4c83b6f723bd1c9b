/**
 * Fills {{name}} placeholders known only in the browser (an e-mail address). Its own module:
 * islands import it without t(), which would bring every language's resources along.
 */
export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (match, name: string) => values[name] ?? match);
}
