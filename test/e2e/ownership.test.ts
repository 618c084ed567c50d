// Sessions belong to the client that opened them, over loopback HTTP (token names) and the unix
// socket (`local` beside a token's name): another client is told the session does not exist (the
// words an unknown id gets), lists none of it in dbg_sessions or the dbg:// resources, and cannot
// close it; a handoff offers a session to one named client, who takes it with dbg_start join; the
// per-client quota holds under a burst of starts; /metrics shows sessions by client and what was
// refused.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkContract } from '../helpers/mcp.js';
import { type NetClient, type NetworkServer, privateDir, startNetworkServer } from '../helpers/networkServer.js';
import { fixture } from '../helpers/paths.js';
import { alive, until } from '../helpers/procfs.js';

const ALICE = 'alice-0123456789abcdef0123456789';
const BOB = 'bob-0123456789abcdef0123456789ab';
const CAROL = 'carol-0123456789abcdef012345678';

function tokenFile(): string {
  const path = join(privateDir(), 'tokens');
  writeFileSync(path, `alice:${ALICE}\nbob:${BOB}\ncarol:${CAROL}\n`);
  chmodSync(path, 0o600);
  return path;
}

/** The value of one Prometheus sample line, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** A call whose answer is checked against the published shapes. */
async function call(c: NetClient, name: string, args: Record<string, unknown>) {
  const r = await c.call(name, args);
  checkContract(name, r.data, r.isError);
  return r;
}

async function resourceText(c: NetClient, uri: string): Promise<string> {
  const r = await c.client.readResource({ uri });
  return String((r.contents[0] as { text?: unknown } | undefined)?.text ?? '');
}

/** The same words with one session id put in place of another. */
function withId(message: string, from: string, to: string): string {
  return message.split(from).join(to);
}

describe('sessions belong to the client that opened them', { timeout: 120_000 }, () => {
  for (const via of ['loopback HTTP', 'the unix socket'] as const) {
    it(`another client can neither see, use nor close a session, over ${via}`, async () => {
      const socket = via === 'the unix socket';
      const server = await startNetworkServer([
        ...(socket ? ['--unix', join(privateDir(), 'dbg.sock')] : ['--http', '127.0.0.1:0']),
        '--token-file',
        tokenFile(),
      ]);
      const alice = await server.connect({ token: ALICE });
      // On the socket, a client without a token is `local`; on HTTP every client has a token.
      const other = socket ? await server.connect() : await server.connect({ token: BOB });
      const otherName = socket ? 'local' : 'bob';
      const started = await call(alice, 'dbg_start', { program: fixture('hello'), stop: 'main' });
      const id = started.data.session_id as string;

      expect((await call(other, 'dbg_sessions', {})).data.sessions).toEqual([]);
      const unknown = await call(other, 'dbg_inspect', { session_id: 'deadbeef', view: 'stop' });
      const foreign = await call(other, 'dbg_inspect', { session_id: id, view: 'stop' });
      expect(foreign.code).toBe('no_session');
      // The very words an unknown id gets, and no state of the session in the answer.
      expect(foreign.data.error.message).toBe(withId(unknown.data.error.message, 'deadbeef', id));
      expect(foreign.data.session).toBeUndefined();
      expect((await call(other, 'dbg_run', { session_id: id, action: 'next' })).code).toBe('no_session');
      const unknownClose = await call(other, 'dbg_close', { session_id: 'deadbeef' });
      const foreignClose = await call(other, 'dbg_close', { session_id: id });
      expect(foreignClose.data.closed).toBe(false);
      expect(foreignClose.data.note).toBe(withId(unknownClose.data.note, 'deadbeef', id));
      // Nor in the resources.
      expect(JSON.parse(await resourceText(other, 'dbg://sessions')).sessions).toEqual([]);
      await expect(other.client.readResource({ uri: `dbg://session/${id}` })).rejects.toThrow(/no session/);
      expect((await other.client.listResources()).resources.map((r) => r.uri)).not.toContain(`dbg://session/${id}`);

      // The owner still has it, untouched: stopped at main, listed, readable.
      expect((await call(alice, 'dbg_inspect', { session_id: id, view: 'stop' })).data.session).toMatchObject({
        state: 'stopped',
        stop_id: 1,
      });
      expect(JSON.parse(await resourceText(alice, `dbg://session/${id}`))).toMatchObject({ id, state: 'stopped' });
      expect((await alice.client.listResources()).resources.map((r) => r.uri)).toContain(`dbg://session/${id}`);
      // Each lists its own only.
      const mine = await call(other, 'dbg_start', { program: fixture('hello'), stop: 'no-run' });
      expect((await call(alice, 'dbg_sessions', {})).data.sessions.map((s: { id: string }) => s.id)).toEqual([id]);
      expect((await call(other, 'dbg_sessions', {})).data.sessions.map((s: { id: string }) => s.id)).toEqual([
        mine.data.session_id,
      ]);
      const lines = await until(
        () => server.logs.filter((l) => l.message === 'tool call' && l.tool === 'dbg_start').length === 2,
        'both start log lines',
        10_000,
      ).then(() => server.logs.filter((l) => l.message === 'tool call' && l.tool === 'dbg_start'));
      expect(lines.map((l) => l.client)).toEqual(['alice', otherName]);
    });
  }

  it('hands a session to a named client, who takes it with dbg_start join; nobody else can', async () => {
    const server = await startNetworkServer(['--http', '127.0.0.1:0', '--token-file', tokenFile()]);
    const [alice, bob, carol] = await Promise.all([ALICE, BOB, CAROL].map((token) => server.connect({ token })));
    if (!alice || !bob || !carol) throw new Error('three clients');
    const started = await call(alice, 'dbg_start', { program: fixture('hello'), stop: 'main' });
    const id = started.data.session_id as string;
    const pid = (started.data.session.pids ?? (await call(alice, 'dbg_sessions', {})).data.sessions[0].pids)[0];

    const offered = await call(alice, 'dbg_close', { session_id: id, handoff_to: 'bob' });
    expect(offered.isError).toBe(false);
    expect(offered.data).toMatchObject({ closed: false, offered_to: 'bob' });
    expect(offered.text).toMatch(new RegExp(`stays open, offered to bob, who takes it with dbg_start join=${id}`));
    expect(alive(pid)).toBe(true);
    // Alice's until taken; bob sees the offer, not the session; carol sees nothing.
    expect((await call(alice, 'dbg_sessions', {})).data.sessions.map((s: { id: string }) => s.id)).toEqual([id]);
    const bobs = await call(bob, 'dbg_sessions', {});
    expect(bobs.data.sessions).toEqual([]);
    expect(bobs.data.offered).toEqual([
      { id, from: 'alice', program: fixture('hello'), summary: expect.stringMatching(/^stop 1: /) },
    ]);
    expect(bobs.text).toContain(`offered to you by alice: ${id}`);
    expect((await call(carol, 'dbg_sessions', {})).data).toEqual({
      sessions: [],
      evidence_version: expect.any(Number),
    });
    expect((await call(bob, 'dbg_inspect', { session_id: id, view: 'stop' })).code).toBe('no_session');
    // Carol cannot take what was offered to bob: the words an unknown id gets.
    const carolJoin = await call(carol, 'dbg_start', { join: id });
    const carolUnknown = await call(carol, 'dbg_start', { join: 'deadbeef' });
    expect(carolJoin.code).toBe('no_session');
    expect(carolJoin.data.error.message).toBe(withId(carolUnknown.data.error.message, 'deadbeef', id));

    const taken = await call(bob, 'dbg_start', { join: id });
    expect(taken.isError, taken.text).toBe(false);
    expect(taken.data).toMatchObject({ session_id: id, outcome: { kind: 'stopped', stop_id: 1 } });
    expect(taken.text).toMatch(new RegExp(`took session ${id}, handed to you`));
    // Bob's now: alice is told it does not exist; bob works it, and closes it.
    expect((await call(alice, 'dbg_inspect', { session_id: id, view: 'stop' })).code).toBe('no_session');
    expect((await call(alice, 'dbg_sessions', {})).data.sessions).toEqual([]);
    expect((await call(bob, 'dbg_run', { session_id: id, action: 'next' })).data.outcome.kind).toBe('stopped');
    expect((await call(bob, 'dbg_start', { join: id })).code).toBe('invalid_argument');
    expect((await call(bob, 'dbg_close', { session_id: id })).data.closed).toBe(true);
    await until(() => !alive(pid), 'the program to be killed', 10_000);
    for (const message of ['session offered', 'session handed over']) {
      expect(server.logs.find((l) => l.message === message)).toMatchObject({ session: id, to: 'bob' });
    }
  });

  it('refuses a handoff to oneself, and join with a target beside it (the offer then stands)', async () => {
    const server = await startNetworkServer(['--http', '127.0.0.1:0', '--token-file', tokenFile()]);
    const alice = await server.connect({ token: ALICE });
    const bob = await server.connect({ token: BOB });
    const id = (await call(alice, 'dbg_start', { program: fixture('hello'), stop: 'no-run' })).data.session_id;
    const self = await call(alice, 'dbg_close', { session_id: id, handoff_to: 'alice' });
    expect(self).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(self.data.error.message).toMatch(/handoff_to: names you/);
    await call(alice, 'dbg_close', { session_id: id, handoff_to: 'bob' });
    const withTarget = await call(bob, 'dbg_start', { join: id, program: fixture('crash') });
    expect(withTarget).toMatchObject({ isError: true, code: 'invalid_argument' });
    expect(withTarget.data.error.message).toMatch(/^program: session [0-9a-f]{8} is handed over open, as it is/);
    // Refused before anything was taken: the offer stands.
    expect((await call(bob, 'dbg_start', { join: id })).data.session_id).toBe(id);
  });
});

describe('the per-client quota', { timeout: 120_000 }, () => {
  it('holds under a burst of starts from one client, leaves others their own, and shows in /metrics', async () => {
    const server = await startNetworkServer([
      '--http',
      '127.0.0.1:0',
      '--token-file',
      tokenFile(),
      '--client-sessions',
      '2',
      '--max-sessions',
      '8',
    ]);
    const alice = await server.connect({ token: ALICE, era: 'auto' });
    const bob = await server.connect({ token: BOB, era: 'auto' });
    // Six at once: each passes its checks before any has a session, so only the reservation counts.
    const burst = await Promise.all(
      Array.from({ length: 6 }, () => call(alice, 'dbg_start', { program: fixture('hello'), stop: 'no-run' })),
    );
    const ok = burst.filter((r) => !r.isError);
    const refused = burst.filter((r) => r.isError);
    expect(ok).toHaveLength(2);
    expect(refused.map((r) => r.code)).toEqual([
      'limit_exceeded',
      'limit_exceeded',
      'limit_exceeded',
      'limit_exceeded',
    ]);
    expect(refused[0]?.data.error.message).toMatch(
      /^you hold 2 sessions, the most one client may \(--client-sessions\)/,
    );
    expect(refused[0]?.data.error.details).toEqual({ limit: 2, refusal: 'client_session_limit' });
    expect((await call(bob, 'dbg_start', { program: fixture('hello'), stop: 'no-run' })).isError).toBe(false);
    // Closing one gives alice room for one more.
    expect((await call(alice, 'dbg_close', { session_id: ok[0]?.data.session_id })).data.closed).toBe(true);
    expect((await call(alice, 'dbg_start', { program: fixture('hello'), stop: 'no-run' })).isError).toBe(false);
    const text = (await server.raw('/metrics', { headers: { authorization: `Bearer ${ALICE}` } })).body;
    expect(sample(text, 'dbg_mcp_client_sessions{client="alice"}')).toBe(2);
    expect(sample(text, 'dbg_mcp_client_sessions{client="bob"}')).toBe(1);
    expect(sample(text, 'dbg_mcp_refused_inputs_total{reason="client_session_limit"}')).toBe(4);
    expect(sample(text, 'dbg_mcp_tool_calls_total{tool="dbg_start",outcome="limit_exceeded"}')).toBe(4);
    const logged = await server.waitForLog(
      (l) => l.message === 'tool call' && l.refusal === 'client_session_limit',
      'a refusal in the call log',
    );
    expect(logged.client).toBe('alice');
  });
});

describe('/metrics on the sessions', { timeout: 120_000 }, () => {
  it('counts a debugger that died under a session, not one a close ended', async () => {
    const server: NetworkServer = await startNetworkServer(['--http', '127.0.0.1:0']);
    const c = await server.connect();
    const first = await call(c, 'dbg_start', { program: fixture('hello'), stop: 'main' });
    await call(c, 'dbg_close', { session_id: first.data.session_id });
    const second = await call(c, 'dbg_start', { program: fixture('hello'), stop: 'main' });
    const gdb = (await call(c, 'dbg_sessions', {})).data.sessions[0].debugger_pid as number;
    process.kill(gdb, 'SIGKILL');
    await until(() => !alive(gdb), 'gdb to die', 10_000);
    await server.waitForLog((l) => l.message === 'session debugger gone', 'the death in the log');
    const text = (await server.raw('/metrics')).body;
    expect(sample(text, 'dbg_mcp_debugger_deaths_total{backend="gdb"}')).toBe(1);
    expect(sample(text, 'dbg_mcp_sessions{backend="gdb",state="dead"}')).toBe(1);
    await call(c, 'dbg_close', { session_id: second.data.session_id });
  });
});
