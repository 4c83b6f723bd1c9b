/** What the page posts to a waiting worker when the reader chooses to reload onto a new deployment (UpdateNotice.astro). */
export const SKIP_WAITING = 'SKIP_WAITING';
