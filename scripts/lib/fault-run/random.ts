import { createHash, randomInt } from 'node:crypto';

/**
 * Seeded randomness for the fault-injection run: one printed seed decides every fault, kill and
 * buyer's choice, each part drawing from its own stream (so a part that draws more does not shift
 * another's choices). Requests still interleave as the machine schedules them, so a replay makes
 * the same choices, not necessarily the same history.
 */
export type Random = () => number;

/** A fresh seed to print: a whole number that fits `--seed`. */
export const newSeed = () => randomInt(1, 2 ** 31 - 1);

/** mulberry32 over a 32-bit state derived from the seed and the stream's name: numbers in [0, 1). */
export function seeded(seed: number, stream: string): Random {
  let state = createHash('sha256').update(`${seed}:${stream}`).digest().readUInt32LE(0);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A whole number in [min, max]. */
export const between = (random: Random, min: number, max: number) => min + Math.floor(random() * (max - min + 1));

/** One of the items. */
export const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
