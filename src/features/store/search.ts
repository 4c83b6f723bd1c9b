/**
 * Store search (DESIGN 2): case- and accent-insensitive substring match on the name in the
 * page's language, the English name, the code and common aliases ('USA', 'UK', 'Czech Republic').
 * The build precomputes each item's folded search text; the browser folds the query the same way.
 */
export function foldForSearch(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '') // accents and other combining marks: 'Réunion' -> 'Reunion'
    .toLowerCase()
    .replace(/[\s\p{P}]+/gu, ' ') // 'U.S.A.' and 'Guinea-Bissau' match with or without punctuation
    .trim();
}

/** The folded text an item is found by; terms are joined by a separator no query contains. */
export function searchText(terms: readonly (string | undefined)[]): string {
  return [...new Set(terms.filter((t): t is string => !!t).map(foldForSearch))].join('|');
}

export function matchesSearch(itemSearchText: string, query: string): boolean {
  const folded = foldForSearch(query);
  if (folded === '') return true;
  return itemSearchText.split('|').some((term) => term.includes(folded));
}
