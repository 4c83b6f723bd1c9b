// A throwaway PostgreSQL server for tests: Debian's binaries, a fresh cluster in a temp folder,
// trust auth on 127.0.0.1 only, a free port; stopped and deleted afterwards.
import { spawn, spawnSync, type SpawnOptions } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './free-port.ts';

export interface PostgresServer {
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url: string;
  stop(): Promise<void>;
}

const DATABASE = 'shop_test';

/** PG_BIN, else the newest /usr/lib/postgresql/<version>/bin (Debian's postgresql package). */
export function findPostgresBin(): string {
  if (process.env.PG_BIN) {
    if (!existsSync(join(process.env.PG_BIN, 'initdb'))) throw new Error(`PG_BIN=${process.env.PG_BIN} has no initdb`);
    return process.env.PG_BIN;
  }
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    throw new Error(
      'PostgreSQL server binaries not found (no /usr/lib/postgresql/<version>/bin/initdb). The tests start their own ' +
        "server: install Debian's postgresql package (apt-get install -y --no-install-recommends postgresql) or set " +
        'PG_BIN to a folder holding initdb, pg_ctl and postgres.',
    );
  }
  return join(root, versions[0]!, 'bin');
}

/** PostgreSQL refuses to run as root: then run its tools as the postgres user Debian's package creates. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  const [uid, gid] = [id('-u'), id('-g')];
  if (uid.status !== 0 || gid.status !== 0) {
    throw new Error('Running as root, PostgreSQL needs a "postgres" user to run as (Debian\'s postgresql package creates it).');
  }
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function runTool(command: string, args: string[], options: SpawnOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (status) =>
      status === 0 ? resolve(output) : reject(new Error(`${command} ${args.join(' ')} failed (${status}):\n${output}`)),
    );
  });
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = findPostgresBin();
  const user = serverUser();
  const folder = mkdtempSync(join(tmpdir(), 'shop-postgres-'));
  const data = join(folder, 'data');
  const log = join(folder, 'server.log');
  if (user) chownSync(folder, user.uid, user.gid);
  const options: SpawnOptions = { ...(user ?? {}), cwd: folder, env: { ...process.env, LC_ALL: 'C' } };
  const tool = (name: string, args: string[]) => runTool(join(bin, name), args, options);

  let stopped = false;
  // Synchronous, for process exit: an orphaned server would hold its port and folder.
  const stopNow = () => {
    if (stopped) return;
    stopped = true;
    if (existsSync(join(data, 'postmaster.pid'))) {
      spawnSync(join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'immediate', '-w'], { ...options, stdio: 'ignore' });
    }
    rmSync(folder, { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals) => {
    stopNow();
    // With no other listener left, the signal's default action (ending the process) applies again.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  process.once('exit', stopNow);
  for (const signal of signals) process.once(signal, onSignal);
  const forget = () => {
    process.off('exit', stopNow);
    for (const signal of signals) process.off(signal, onSignal);
  };

  try {
    // --no-sync and the settings below trade durability for speed: the data is thrown away.
    await tool('initdb', ['-D', data, '-U', 'postgres', '-E', 'UTF8', '--no-locale', '--no-sync', '-A', 'trust']);
    writeFileSync(join(data, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
    const port = await startOnFreePort(tool, data, folder, log);
    const url = `postgres://postgres@127.0.0.1:${port}/${DATABASE}`;
    const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${DATABASE}`);
    } finally {
      await admin.end();
    }
    return {
      url,
      async stop() {
        if (stopped) return;
        forget();
        try {
          await tool('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w']);
        } finally {
          stopped = true;
          rmSync(folder, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    forget();
    stopNow();
    throw error;
  }
}

/** A port found free can be taken before the server binds it: then try another. */
async function startOnFreePort(
  tool: (name: string, args: string[]) => Promise<string>,
  data: string,
  socketDir: string,
  log: string,
): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const settings = `-c listen_addresses=127.0.0.1 -p ${port} -k ${socketDir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
    try {
      await tool('pg_ctl', ['start', '-D', data, '-l', log, '-w', '-t', '60', '-o', settings]);
      return port;
    } catch (error) {
      const serverLog = existsSync(log) ? readFileSync(log, 'utf8') : '';
      if (attempt >= 3 || !/could not bind|address already in use/i.test(serverLog)) {
        throw new Error(`${(error as Error).message}\n${serverLog}`, { cause: error });
      }
    }
  }
}
