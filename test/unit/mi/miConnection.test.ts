// The MI connection without a debugger: the test plays GDB's side of the pipe, line by line, so
// each ordering (late replies, pipelined commands, a debugger that dies) is exact.
import { describe, expect, it } from 'vitest';
import { MiConnection } from '../../../src/protocols/mi/miConnection.js';
import type { MiRecord } from '../../../src/protocols/mi/miRecords.js';

function connection(options: ConstructorParameters<typeof MiConnection>[1] = {}) {
  const written: string[] = [];
  const records: MiRecord[] = [];
  const conn = new MiConnection(
    {
      write: (chunk) => {
        written.push(chunk);
        return true;
      },
    },
    { onRecord: (r) => records.push(r), ...options },
  );
  const gdb = (...lines: string[]) => conn.receive(Buffer.from(lines.map((l) => `${l}\n`).join('')));
  return { conn, written, records, gdb };
}

describe('MiConnection', () => {
  it('puts a token on every command and matches answers by token, in any order', async () => {
    const { conn, written, gdb } = connection();
    const a = conn.send('data-evaluate-expression', ['1+1']);
    const b = conn.send('data-evaluate-expression', ['a b']);
    expect(written).toEqual(['1-data-evaluate-expression 1+1\n', '2-data-evaluate-expression "a b"\n']);
    gdb('2^done,value="B"', '1^done,value="A"', '(gdb) ');
    expect((await a).results).toEqual({ value: 'A' });
    expect((await b).results).toEqual({ value: 'B' });
  });

  it("rejects ^error with GDB's message and the caller's stack", async () => {
    const { conn, gdb } = connection();
    const p = conn.send('break-insert', ['nowhere']);
    gdb('1^error,msg="Function \\"nowhere\\" not defined."');
    await expect(p).rejects.toMatchObject({ code: 'debugger_error', message: 'Function "nowhere" not defined.' });
    await p.catch((e: Error) => expect(e.stack).toContain('miConnection.test.ts'));
  });

  it("a late answer after a timeout is dropped, never read as the next command's", async () => {
    const unmatched: MiRecord[] = [];
    const { conn, gdb } = connection({ onUnmatched: (r) => unmatched.push(r) });
    const slow = conn.send('exec-next', [], { timeoutMs: 10 });
    await expect(slow).rejects.toMatchObject({ code: 'timeout' });
    const next = conn.send('data-evaluate-expression', ['x']);
    gdb('1^done', '2^done,value="2"');
    expect((await next).results).toEqual({ value: '2' });
    expect(unmatched).toHaveLength(1);
  });

  it('gives console text to the command GDB is running, not to every command waiting', async () => {
    const { conn, gdb, records } = connection();
    const first = conn.send('interpreter-exec', ['console', 'handle SIGSTOP'], { captureConsole: true });
    const version = conn.send('gdb-version', [], { captureConsole: true });
    gdb('~"Signal Stop Print\\n"', '1^done', '~"GNU gdb 13.1\\n"', '2^done', '~"[Inferior 1 exited]\\n"');
    expect((await first).console).toBe('Signal Stop Print\n');
    expect((await version).console).toBe('GNU gdb 13.1\n');
    // Text printed when no command runs is the debugger's own, for the listener.
    expect(records.filter((r) => r.kind === 'console').map((r) => (r as { text: string }).text)).toContain(
      '[Inferior 1 exited]\n',
    );
  });

  it('text printed for a command whose caller gave up is captured by nobody', async () => {
    const { conn, gdb } = connection();
    const gaveUp = conn.send('interpreter-exec', ['console', 'info frame'], { captureConsole: true, timeoutMs: 5 });
    await expect(gaveUp).rejects.toMatchObject({ code: 'timeout' });
    const next = conn.send('gdb-version', [], { captureConsole: true });
    gdb('~"frame text\\n"', '1^done', '~"GNU gdb\\n"', '2^done');
    expect((await next).console).toBe('GNU gdb\n');
  });

  it('refuses a line break in an argument before writing anything', async () => {
    const { conn, written } = connection();
    await expect(conn.send('break-insert', ['main\n-gdb-exit'])).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(conn.send('gdb-set', { raw: 'args a\rb' })).rejects.toMatchObject({ code: 'invalid_argument' });
    expect(written).toEqual([]);
  });

  it('passes CLI-wrapped commands their text unquoted', () => {
    const { conn, written } = connection();
    void conn.send('gdb-set', { raw: 'environment A=b c' }).catch(() => {});
    expect(written).toEqual(['1-gdb-set environment A=b c\n']);
  });

  it('fails every pending command at once when the debugger is gone, and every later one', async () => {
    const { conn } = connection();
    const a = conn.send('exec-continue');
    const b = conn.send('data-evaluate-expression', ['1']);
    conn.fail('gdb was killed by SIGKILL');
    await expect(a).rejects.toMatchObject({ code: 'debugger_error', message: 'gdb was killed by SIGKILL' });
    await expect(b).rejects.toMatchObject({ code: 'debugger_error' });
    await expect(conn.send('gdb-version')).rejects.toMatchObject({ message: 'gdb was killed by SIGKILL' });
  });

  it('a cancelled command stops waiting at once', async () => {
    const { conn } = connection();
    const controller = new AbortController();
    const p = conn.send('exec-continue', [], { signal: controller.signal });
    controller.abort();
    await expect(p).rejects.toMatchObject({ code: 'timeout' });
    expect(conn.pendingCount).toBe(0);
  });
});
