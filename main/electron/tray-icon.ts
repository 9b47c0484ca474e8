// Tray icons drawn in code (no image files to ship or keep in sync): a rounded square
// whose colour says the state — idle (slate), N pending (amber, with a dot), locked (red,
// a bar across). 32×32 bitmaps at scale factor 2, i.e. 16 pt in the tray.
import { nativeImage, type NativeImage } from 'electron';

export type TrayState = { kind: 'idle' } | { kind: 'pending'; count: number } | { kind: 'locked'; pending: number };

const SIZE = 32;
const COLORS: Record<TrayState['kind'], [number, number, number]> = {
  idle: [0x5f, 0x6b, 0x7a],
  pending: [0xe0, 0x8a, 0x00],
  locked: [0xc6, 0x2f, 0x3b],
};

function inRoundedSquare(x: number, y: number, inset: number, radius: number): boolean {
  const lo = inset;
  const hi = SIZE - 1 - inset;
  if (x < lo || x > hi || y < lo || y > hi) return false;
  const cx = Math.min(Math.max(x, lo + radius), hi - radius);
  const cy = Math.min(Math.max(y, lo + radius), hi - radius);
  return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2;
}

export function trayIcon(state: TrayState): NativeImage {
  const [r, g, b] = COLORS[state.kind];
  const buf = Buffer.alloc(SIZE * SIZE * 4);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const i = (y * SIZE + x) * 4;
      let px: [number, number, number, number] = [0, 0, 0, 0];
      if (inRoundedSquare(x, y, 2, 7)) px = [r, g, b, 255];
      // The "lock" shackle: a white arch on top of the square for every state.
      const inner = inRoundedSquare(x, y, 9, 3) && y > 14;
      if (inner) px = [255, 255, 255, 255];
      if (state.kind === 'pending' && (x - 24) ** 2 + (y - 8) ** 2 <= 36) px = [255, 255, 255, 255];
      if (state.kind === 'locked' && Math.abs(x - y) <= 1 && x > 4 && x < 28) px = [255, 255, 255, 255];
      // Electron bitmaps are BGRA.
      buf[i] = px[2];
      buf[i + 1] = px[1];
      buf[i + 2] = px[0];
      buf[i + 3] = px[3];
    }
  }
  return nativeImage.createFromBitmap(buf, { width: SIZE, height: SIZE, scaleFactor: 2 });
}

export function trayTooltip(state: TrayState): string {
  if (state.kind === 'idle') return 'Airlock — nothing waiting';
  if (state.kind === 'pending') return `Airlock — ${state.count} request${state.count === 1 ? '' : 's'} waiting`;
  return `Airlock — screen locked${state.pending ? `, ${state.pending} waiting (shown when you unlock)` : ''}`;
}
