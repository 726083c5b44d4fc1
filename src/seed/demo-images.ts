import { loadSharp } from '../media/media.images.ts';

/**
 * The demo catalog's pictures, drawn here with sharp (no network, no font): a diagonal gradient in
 * a colour of the product's own, with a plain silhouette of what it is. 800 × 800 JPEG, a few KiB
 * each, a few milliseconds to make.
 */

const SIZE = 800;

/** Silhouettes on a 800 × 800 canvas, by what the product is (its first tag). */
const SHAPES: Record<string, string> = {
  top: 'M260 190 L340 160 Q400 210 460 160 L540 190 L650 300 L580 370 L540 335 L540 640 L260 640 L260 335 L220 370 L150 300 Z',
  trousers: 'M270 160 L530 160 L560 640 L440 640 L400 330 L360 640 L240 640 Z',
  bag: 'M230 330 L570 330 L600 640 L200 640 Z M320 330 Q320 200 400 200 Q480 200 480 330 L450 330 Q450 235 400 235 Q350 235 350 330 Z',
  shoe: 'M170 460 L330 380 L400 440 Q520 470 620 500 Q660 520 650 570 L170 570 Z',
  hat: 'M230 520 Q230 250 400 250 Q570 250 570 520 Z M200 520 L600 520 L600 580 L200 580 Z',
  gift: 'M230 330 L570 330 L570 620 L230 620 Z M200 270 L600 270 L600 340 L200 340 Z M380 270 L420 270 L420 620 L380 620 Z',
  glasses:
    'M160 420 a115 115 0 1 0 230 0 a115 115 0 1 0 -230 0 Z M410 420 a115 115 0 1 0 230 0 a115 115 0 1 0 -230 0 Z M380 395 L420 395 L420 420 L380 420 Z',
  round: 'M400 200 A200 200 0 1 1 399.9 200 Z',
};

const SHAPE_OF_TAG: Record<string, keyof typeof SHAPES> = {
  shirts: 'top',
  tees: 'top',
  knitwear: 'top',
  outerwear: 'top',
  trousers: 'trousers',
  shorts: 'trousers',
  footwear: 'shoe',
  gift: 'gift',
};

function svg(index: number, tag: string, title: string): string {
  const hue = (index * 47 + 20) % 360;
  const shape =
    SHAPE_OF_TAG[tag] ??
    (/tote|bag/i.test(title)
      ? 'bag'
      : /beanie|hat/i.test(title)
        ? 'hat'
        : /glasses/i.test(title)
          ? 'glasses'
          : 'round');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 ${SIZE} ${SIZE}">
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
    <stop offset="0" stop-color="hsl(${hue}, 55%, 82%)"/>
    <stop offset="1" stop-color="hsl(${(hue + 40) % 360}, 45%, 58%)"/>
  </linearGradient></defs>
  <rect width="${SIZE}" height="${SIZE}" fill="url(#g)"/>
  <path d="${SHAPES[shape]}" fill="hsl(${hue}, 35%, 30%)" fill-opacity="0.82"/>
</svg>`;
}

/** The picture of the demo product at `index` (its first tag chooses the silhouette). */
export async function demoImage(index: number, tag: string, title: string): Promise<Buffer> {
  const sharp = await loadSharp();
  return sharp(Buffer.from(svg(index, tag, title)))
    .jpeg({ quality: 80 })
    .toBuffer();
}
