import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';

/**
 * Every country's and region's flag exists in public/ (served at the site root), so no page
 * shows a broken image. Kept out of schema.ts: it reads the filesystem. Paths resolve from the
 * project root, where npm runs the build, the scripts and the tests (a bundled module's
 * import.meta.url points into the build output instead).
 */
export function flagFilesExist(root = process.cwd()) {
  return (
    catalogue: { countries: ReadonlyArray<{ flag: string }>; regions: ReadonlyArray<{ flag: string }> },
    ctx: z.RefinementCtx,
  ): void => {
    for (const kind of ['countries', 'regions'] as const) {
      catalogue[kind].forEach(({ flag }, index) => {
        // FlagPath allows only /flags/<name>.svg, so the join cannot leave public/.
        const file = join('public', flag);
        if (!existsSync(join(root, file))) ctx.addIssue({ code: 'custom', path: [kind, index, 'flag'], message: `${file} does not exist` });
      });
    }
  };
}
