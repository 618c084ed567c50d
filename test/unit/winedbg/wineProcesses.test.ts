// Finding and ending processes by their environment, and the TCP facts of /proc the proxy's port
// and peer are read from, on real processes and sockets of this test (no Wine needed).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listeningSockets, proxyPeerIsOurs, tcpEntries } from '../../../src/backends/winedbg/proxyPort.js';
import {
  isSharedWineProcess,
  killWineProcesses,
  processesWithEnvironment,
  SESSION_VARIABLE,
  sessionProcesses,
} from '../../../src/backends/winedbg/wineProcesses.js';
import { alive } from '../../helpers/procfs.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

function sleeper(env: Record<string, string>, detached = true): ChildProcess {
  // detached: a session of its own, as Wine's processes have; the sweep must not need the tree.
  const c = spawn('sleep', ['600'], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'ignore', detached });
  children.push(c);
  return c;
}

describe('processes by environment', () => {
  it('finds the processes started with an exact entry, not those whose value only begins the same', () => {
    const id = randomBytes(6).toString('hex');
    const a = sleeper({ [SESSION_VARIABLE]: id });
    const b = sleeper({ [SESSION_VARIABLE]: `${id}x` });
    const found = processesWithEnvironment(SESSION_VARIABLE, id).map((p) => p.pid);
    expect(found).toEqual([a.pid]);
    expect(found).not.toContain(b.pid);
    expect(sessionProcesses(id).map((p) => p.command)).toEqual(['sleep']);
  });

  it('tells the prefix’s shared processes by their command line', () => {
    expect(isSharedWineProcess('/usr/lib/wine/wineserver64')).toBe(true);
    expect(isSharedWineProcess('C:\\windows\\system32\\svchost.exe -k LocalServiceNetworkRestricted')).toBe(true);
    expect(isSharedWineProcess('C:\\windows\\system32\\explorer.exe /desktop')).toBe(true);
    expect(isSharedWineProcess('C:\\windows\\system32\\winedbg.exe --gdb')).toBe(false);
    expect(isSharedWineProcess('/work/build/services.exe')).toBe(false);
    expect(isSharedWineProcess('Z:\\games\\explorer.exe')).toBe(false);
  });

  it('killWineProcesses ends every match and waits until they are gone', async () => {
    const id = randomBytes(6).toString('hex');
    const procs = [sleeper({ MARK: id }), sleeper({ MARK: id }), sleeper({ MARK: 'other' })];
    const killed = await killWineProcesses(() => processesWithEnvironment('MARK', id));
    expect(killed.sort()).toEqual([procs[0]?.pid, procs[1]?.pid].sort());
    expect(alive(procs[2]?.pid as number)).toBe(true);
    expect(processesWithEnvironment('MARK', id)).toEqual([]);
  });
});

describe('TCP facts from /proc', () => {
  const servers: Server[] = [];
  const sockets: Socket[] = [];
  afterEach(() => {
    for (const s of sockets.splice(0)) s.destroy();
    for (const s of servers.splice(0)) s.close();
  });

  function listen(): Promise<{ server: Server; port: number; accepted: Promise<Socket> }> {
    return new Promise((resolve) => {
      let accept: (s: Socket) => void = () => {};
      const accepted = new Promise<Socket>((r) => {
        accept = r;
      });
      const server = createServer((s) => {
        sockets.push(s);
        accept(s);
      });
      servers.push(server);
      server.listen(0, '127.0.0.1', () =>
        resolve({ server, port: (server.address() as { port: number }).port, accepted }),
      );
    });
  }

  it('parses a /proc/net/tcp table', () => {
    const text = [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 00000000:9623 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 80087 1 0 100 0 0 10 0',
      '   1: 0100007F:9623 0100007F:D2A4 01 00000000:00000000 00:00000000 00000000     0        0 80090 1 0 20 4 30 10 -1',
    ].join('\n');
    expect(tcpEntries(text)).toEqual([
      { localPort: 0x9623, remotePort: 0, state: '0A', inode: 80087 },
      { localPort: 0x9623, remotePort: 0xd2a4, state: '01', inode: 80090 },
    ]);
  });

  it('a listening socket is found among the descriptors of the process that holds it', async () => {
    const { port } = await listen();
    expect([...listeningSockets(process.pid).values()]).toContain(port);
  });

  it('proxyPeerIsOurs: true when the accepted connection comes from the named process, false for another', async () => {
    const { port, accepted } = await listen();
    const client = createConnection({ port, host: '127.0.0.1' });
    sockets.push(client);
    await new Promise((r) => client.once('connect', r));
    await accepted;
    expect(proxyPeerIsOurs(port, process.pid)).toBe(true);
    const other = sleeper({});
    expect(proxyPeerIsOurs(port, other.pid as number)).toBe(false);
  });
});
