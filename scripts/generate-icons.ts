// Draws every app icon and the social-share image from the one source image, public/favicon.svg.
// Run after changing the logo: npm run icons (the PNGs are committed, so builds need no image tools).
import { mkdirSync } from 'node:fs';
import sharp from 'sharp';
import { BRAND_COLOR } from '../src/config/site.ts';

const SOURCE = 'public/favicon.svg';
const OUT = 'public/icons';
mkdirSync(OUT, { recursive: true });

const render = (size: number) => sharp(SOURCE, { density: (72 * size) / 64 }).resize(size, size);

// 'any' icons keep the rounded corners; maskable and Apple icons are full-bleed squares,
// because the platform cuts its own shape (the glyph sits inside the 80 % safe zone).
await render(192).png().toFile(`${OUT}/icon-192.png`);
await render(512).png().toFile(`${OUT}/icon-512.png`);
await render(512).flatten({ background: BRAND_COLOR }).png().toFile(`${OUT}/maskable-512.png`);
await render(180).flatten({ background: BRAND_COLOR }).png().toFile(`${OUT}/apple-touch-icon.png`);

// Open Graph: 1200 x 630, the logo centred on the brand colour.
const logo = await render(360).flatten({ background: BRAND_COLOR }).png().toBuffer();
await sharp({ create: { width: 1200, height: 630, channels: 3, background: BRAND_COLOR } })
  .composite([{ input: logo, gravity: 'centre' }])
  .png()
  .toFile(`${OUT}/og-image.png`);
console.log(`Icons written to ${OUT}/`);
