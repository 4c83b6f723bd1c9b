import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('./api-process.ts', import.meta.url));

/** One API instance's place: its process while up (each start is a new process on a new port). */
interface Slot {
  name: string;
  child: ChildProcess | undefined;
  url: string | undefined;
  starting: Promise<void> | undefined;
  log: WriteStream;
}

/**
 * The shop API instances of the fault-injection run, each a process of its own
 * (api-process.ts) on one database: started, killed with SIGKILL, started again. The front
 * routes to `urls()`: an instance leaves it the moment it is killed.
 */
export interface Fleet {
  /** The instances up and answering. */
  urls(): string[];
  /** Starts instance `index` unless it is up or starting; resolves once it answers. */
  start(index: number): Promise<void>;
  /** SIGKILL: no clean stop, no last write; the process is gone at once. */
  kill(index: number): Promise<void>;
  isUp(index: number): boolean;
  readonly size: number;
  readonly kills: number;
  readonly starts: number;
  /** SIGTERM to every instance, waiting for each to stop. */
  stopAll(): Promise<void>;
}

export function createFleet(settings: { size: number; env: Record<string, string>; logDir: string }): Fleet {
  const slots: Slot[] = Array.from({ length: settings.size }, (_, i) => ({
    name: `api-${i + 1}`,
    child: undefined,
    url: undefined,
    starting: undefined,
    log: createWriteStream(join(settings.logDir, `api-${i + 1}.log`), { flags: 'a' }),
  }));
  let kills = 0;
  let starts = 0;

  async function launch(slot: Slot): Promise<void> {
    const child = spawn(process.execPath, [ENTRY], {
      env: { ...process.env, ...settings.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    slot.child = child;
    slot.log.write(`--- ${new Date().toISOString()} start (pid ${child.pid})\n`);
    child.stderr!.on('data', (chunk: Buffer) => slot.log.write(chunk));
    const lines = createInterface({ input: child.stdout! });
    const listening = new Promise<string>((resolve, reject) => {
      lines.on('line', (line) => {
        slot.log.write(`${line}\n`);
        try {
          const { listening: url } = JSON.parse(line) as { listening?: string };
          if (url) resolve(url);
        } catch {}
      });
      child.once('exit', (code, signal) =>
        reject(new Error(`${slot.name} exited (${signal ?? code}) before it answered; see ${slot.log.path}`)),
      );
    });
    child.once('exit', (code, signal) => {
      slot.log.write(`--- ${new Date().toISOString()} exit ${signal ?? code}\n`);
      if (slot.child === child) {
        slot.child = undefined;
        slot.url = undefined;
      }
    });
    const url = await listening;
    if (slot.child !== child) return; // killed while starting
    slot.url = url;
    starts++;
  }

  return {
    urls: () => slots.flatMap((slot) => (slot.url ? [slot.url] : [])),
    isUp: (index) => !!slots[index]!.url,
    start(index) {
      const slot = slots[index]!;
      if (slot.child) return slot.starting ?? Promise.resolve();
      slot.starting = launch(slot).finally(() => (slot.starting = undefined));
      return slot.starting;
    },
    async kill(index) {
      const slot = slots[index]!;
      const child = slot.child;
      if (!child) return;
      slot.url = undefined;
      slot.child = undefined;
      kills++;
      slot.log.write(`--- ${new Date().toISOString()} SIGKILL\n`);
      child.kill('SIGKILL');
      if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
    },
    get size() {
      return slots.length;
    },
    get kills() {
      return kills;
    },
    get starts() {
      return starts;
    },
    async stopAll() {
      await Promise.all(
        slots.map(async (slot) => {
          await slot.starting?.catch(() => undefined);
          const child = slot.child;
          slot.url = undefined;
          if (!child) return;
          child.kill('SIGTERM');
          const exited = once(child, 'exit');
          const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exited;
          clearTimeout(timer);
        }),
      );
      await Promise.all(slots.map((slot) => new Promise((done) => slot.log.end(done))));
    },
  };
}
