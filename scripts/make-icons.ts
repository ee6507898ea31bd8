// Draws the inbox's app icons (API.md §19: an installable inbox) into src/inbox/public/icons/:
// a tray with a check mark on the accent colour, at the sizes install prompts ask for, plus a
// maskable one whose drawing keeps to the safe zone. Run `npx tsx scripts/make-icons.ts` after
// changing the drawing; the PNGs are committed. PNG is written by hand (zlib does the
// compressing): an 8-bit RGBA image needs only the signature, IHDR, one IDAT and IEND.
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const OUT = new URL('../src/inbox/public/icons/', import.meta.url);
const ACCENT = [0x3b, 0x4f, 0xd8] as const;
const WHITE = [0xff, 0xff, 0xff] as const;

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = (CRC_TABLE[(c ^ b) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function png(
  size: number,
  pixel: (x: number, y: number) => readonly [number, number, number, number],
): Buffer {
  const rows: Buffer[] = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 4);
    for (let x = 0; x < size; x++) row.set(pixel(x, y), 1 + x * 4);
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Distance from (px, py) to the segment a–b, all in units of the icon's side. */
function toSegment(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/**
 * The drawing in unit coordinates: a rounded square (or the full square when maskable), a tray
 * outline and a check mark, both white. `inset` shrinks the drawing towards the centre.
 */
function icon(size: number, maskable: boolean): Buffer {
  const inset = maskable ? 0.2 : 0.08;
  return png(size, (x, y) => {
    const u = (x + 0.5) / size;
    const v = (y + 0.5) / size;
    // Rounded-square background (radius 0.18); maskable icons fill the square.
    const r = 0.18;
    const cx = Math.min(Math.max(u, r), 1 - r);
    const cy = Math.min(Math.max(v, r), 1 - r);
    const inside = maskable || Math.hypot(u - cx, v - cy) <= r;
    if (!inside) return [0, 0, 0, 0];
    // Drawing coordinates, scaled into the safe area.
    const s = (w: number) => inset + w * (1 - 2 * inset);
    const stroke = 0.055 * (1 - 2 * inset);
    const tray = [
      toSegment(u, v, s(0.15), s(0.55), s(0.15), s(0.82)),
      toSegment(u, v, s(0.15), s(0.82), s(0.85), s(0.82)),
      toSegment(u, v, s(0.85), s(0.82), s(0.85), s(0.55)),
    ];
    const check = [
      toSegment(u, v, s(0.3), s(0.38), s(0.45), s(0.53)),
      toSegment(u, v, s(0.45), s(0.53), s(0.72), s(0.18)),
    ];
    const near = Math.min(...tray, ...check);
    return near <= stroke ? [...WHITE, 255] : [...ACCENT, 255];
  });
}

for (const size of [192, 512]) writeFileSync(new URL(`icon-${size}.png`, OUT), icon(size, false));
writeFileSync(new URL('maskable-512.png', OUT), icon(512, true));
console.log('wrote src/inbox/public/icons/icon-192.png, icon-512.png, maskable-512.png');
