// The program's own terminal: stdin written by the agent, EOF, and argv and environment that
// reach the program byte for byte, with nothing interpreted by a shell.
import { describe, expect, it } from 'vitest';
import { expectExited, expectStopped, WAIT_MS, waitForOutput, waitForPhase } from '../../helpers/outcomes.js';
import { fixture } from '../../helpers/paths.js';
import { loaded, newManager } from '../../helpers/sessions.js';

const wait = { timeoutMs: WAIT_MS };

/**
 * Starts a program that blocks reading stdin. The short deadline is the point: the program waits
 * for input and never stops by itself, so the run answers `running`.
 */
async function startReading(name: string) {
  const s = await loaded(name);
  const first = await s.run({ action: 'run', startMode: 'none', timeoutMs: 200 });
  expect(first.kind).toBe('running');
  return s;
}

describe('program terminal', () => {
  it('stdin reaches the program, and EOF ends its input', async () => {
    const s = await startReading('stdin_echo');
    await s.backend.writeStdin('a\n', Date.now() + 5000);
    await waitForOutput(s, 'got:a\n');
    await s.backend.sendEof(Date.now() + 5000);
    await waitForPhase(s, ['exited']);
    expect(s.snapshot.state).toEqual({ phase: 'exited', exit: { code: 0 } });
    const out = await waitForOutput(s, 'eof after 1 lines\n');
    expect(out).toBe('got:a\neof after 1 lines\n');
  });

  it('EOF after a partial line hands over the line and then ends input', async () => {
    const s = await startReading('stdin_echo');
    await s.backend.writeStdin('partial', Date.now() + 5000);
    await s.backend.sendEof(Date.now() + 5000);
    await waitForPhase(s, ['exited']);
    expect(await waitForOutput(s, 'eof after 1 lines\n')).toBe('got:partialeof after 1 lines\n');
  });

  it('a crash triggered through stdin stops with SIGSEGV at the bad write', async () => {
    const s = await startReading('stdin_echo');
    await s.backend.writeStdin('one\ncrash\n', Date.now() + 5000);
    await waitForPhase(s, ['stopped', 'exited', 'dead']);
    const state = s.snapshot.state;
    if (state.phase !== 'stopped') throw new Error(`expected a stop, got ${JSON.stringify(state)}`);
    expect(state.stop.signal?.name).toBe('SIGSEGV');
    expect(state.stop.faultAddress).toBe('0x0');
    expect(state.stop.frame).toMatchObject({ function: 'main', file: 'stdin_echo.c' });
    expect(await waitForOutput(s, 'got:one\n')).toBe('got:one\n');
    expect(await s.query(['stopped'], 'evaluate', (b) => b.evaluate('lines', {}))).toBe('2');
  });

  it('what is written to stdin is not echoed into the output', async () => {
    const s = await startReading('stdin_echo');
    await s.backend.writeStdin('x\n', Date.now() + 5000);
    await waitForOutput(s, 'got:x\n');
    await s.backend.sendEof(Date.now() + 5000);
    await waitForPhase(s, ['exited']);
    expect(await waitForOutput(s, 'eof')).toBe('got:x\neof after 1 lines\n');
  });

  it.each([
    ['simple arguments', ['one', 'two', '3']],
    ['shell metacharacters without white space', ['$HOME', ';', '*', '"q"', "it's", '`id`', '|', '&&', '>x']],
    ['white space, empty and quotes', ['a b', '', "it's", '$HOME', ';', '*', '"q"', 'tab\there']],
    ['leading and trailing spaces, and a lone quote', ['  lead', 'trail  ', "'", '\\', '$(id)']],
  ])('argv reaches the program byte for byte: %s', async (_name, args) => {
    const s = await loaded('echo_args', args);
    const exit = expectExited(await s.run({ action: 'run', startMode: 'none', ...wait }), 'run echo_args');
    expect(exit.code).toBe(0);
    const expected = `${args.map((a) => `[${a}]\n`).join('')}probe=(unset)\n`;
    expect(await waitForOutput(s, 'probe=')).toBe(expected);
  });

  it('the same arguments survive a second run of the program', async () => {
    const args = ['a b', '', 'c'];
    const s = await loaded('echo_args', args);
    expectExited(await s.run({ action: 'run', startMode: 'none', ...wait }), 'first run');
    const before = s.backend.output?.end ?? 0;
    expectExited(await s.run({ action: 'run', startMode: 'none', ...wait }), 'second run');
    const second = s.backend.output?.read(before, 1 << 20).data.toString('utf8');
    expect(second).toBe('[a b]\n[]\n[c]\nprobe=(unset)\n');
  });

  it('an environment variable given at load reaches the program, spaces included', async () => {
    const manager = newManager();
    const { session } = await manager.launch({
      program: fixture('echo_args'),
      args: ['x'],
      env: { DBG_MCP_PROBE: 'x y' },
    });
    expectExited(await session.run({ action: 'run', startMode: 'none', ...wait }), 'run echo_args');
    expect(await waitForOutput(session, 'probe=')).toBe('[x]\nprobe=x y\n');
  });

  it("the server's own secrets do not reach the program", async () => {
    const saved = process.env['DBG_MCP_PROBE'];
    process.env['DBG_MCP_PROBE'] = 'leaked';
    try {
      const s = await loaded('echo_args');
      expectExited(await s.run({ action: 'run', startMode: 'none', ...wait }), 'run echo_args');
      expect(await waitForOutput(s, 'probe=')).toBe('probe=(unset)\n');
    } finally {
      if (saved === undefined) delete process.env['DBG_MCP_PROBE'];
      else process.env['DBG_MCP_PROBE'] = saved;
    }
  });

  it('stdin written while the program is stopped is read after it resumes', async () => {
    const s = await loaded('stdin_echo');
    expectStopped(await s.run({ action: 'run', startMode: 'main', ...wait }), 'run to main');
    await s.backend.writeStdin('early\n', Date.now() + 5000);
    await s.backend.sendEof(Date.now() + 5000);
    const exit = expectExited(await s.run({ action: 'continue', ...wait }), 'continue to the end');
    expect(exit.code).toBe(0);
    expect(await waitForOutput(s, 'eof')).toBe('got:early\neof after 1 lines\n');
  });
});
