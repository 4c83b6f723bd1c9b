/** What every page says about itself: its title (the <title>, og:title) and its description (meta and og:description). */
export interface PageText {
  title: string;
  description: string;
}
