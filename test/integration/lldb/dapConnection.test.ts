// DapConnection against the real lldb-dap: launch the crash fixture stopped at entry with its
// stdio on /dev/null (no runInTerminal), run it to the SIGSEGV, read the evidence a crash view
// needs, and disconnect, leaving neither lldb-dap, its lldb-server nor the program behind.
import { type ChildProcess, spawn } from 'node:child_process';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { afterEach, describe, expect, it } from 'vitest';
import { DapConnection } from '../../../src/protocols/dap/dapConnection.js';
import { findOnPath } from '../../../src/util/which.js';
import { fixture, fixturesDir } from '../../helpers/paths.js';
import { alive, descendants, describeProcs, killQuietly, until } from '../../helpers/procfs.js';

/** The newest lldb-dap on PATH. */
const names = [...Array.from({ length: 16 }, (_, i) => `lldb-dap-${30 - i}`), 'lldb-dap'];
const lldbDap = findOnPath(names);
const TEST_MS = 60_000;
/** Half the test's timeout, so the wait that fails names itself. */
const WAIT_MS = TEST_MS / 2;

interface Adapter {
  proc: ChildProcess;
  conn: DapConnection;
  reverse: DebugProtocol.Request[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  nextEvent(name: string, what: string): Promise<DebugProtocol.Event>;
}

const started: Adapter[] = [];
const pids: number[] = [];

function startAdapter(path: string): Adapter {
  // Its own process group, so clean-up can take lldb-server and the program with it. The path is
  // absolute: lldb-dap rebuilds its own path from argv[0] (measured: a bare name became cwd/name).
  const proc = spawn(path, [], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const events: DebugProtocol.Event[] = [];
  const waiters: { name: string; resolve: (e: DebugProtocol.Event) => void }[] = [];
  const reverse: DebugProtocol.Request[] = [];
  const conn = new DapConnection(proc.stdin as NonNullable<typeof proc.stdin>, {
    defaultTimeoutMs: WAIT_MS,
    onEvent: (event) => {
      const at = waiters.findIndex((w) => w.name === event.event);
      if (at >= 0) waiters.splice(at, 1)[0]?.resolve(event);
      else events.push(event);
    },
    onReverseRequest: (request) => {
      reverse.push(request);
      throw new Error('this test answers no reverse request');
    },
  });
  proc.stdout?.on('data', (chunk: Buffer) => conn.receive(chunk));
  proc.stderr?.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.on('exit', (code, signal) => {
      conn.fail(`lldb-dap exited (${code ?? signal})`);
      resolve({ code, signal });
    });
  });
  const nextEvent = (name: string, what: string) => {
    const at = events.findIndex((e) => e.event === name);
    if (at >= 0) return Promise.resolve(events.splice(at, 1)[0] as DebugProtocol.Event);
    return new Promise<DebugProtocol.Event>((resolve, reject) => {
      const waiter = { name, resolve };
      waiters.push(waiter);
      setTimeout(() => {
        const i = waiters.indexOf(waiter);
        if (i >= 0) {
          waiters.splice(i, 1);
          reject(new Error(`waited ${WAIT_MS} ms for the ${name} event (${what})`));
        }
      }, WAIT_MS).unref();
    });
  };
  const adapter = { proc, conn, reverse, exited, nextEvent };
  started.push(adapter);
  return adapter;
}

afterEach(() => {
  for (const { proc } of started.splice(0)) if (proc.pid !== undefined) killQuietly(-proc.pid);
  for (const pid of pids.splice(0)) killQuietly(pid);
});

const initializeArgs: DebugProtocol.InitializeRequestArguments = {
  clientID: 'dbg-mcp-test',
  adapterID: 'lldb-dap',
  linesStartAt1: true,
  columnsStartAt1: true,
  pathFormat: 'path',
  supportsRunInTerminalRequest: false,
};

describe.skipIf(lldbDap === undefined)(`DapConnection with ${lldbDap ?? 'lldb-dap (not on PATH)'}`, () => {
  it(
    'launches crash segv stopped at entry, continues to the SIGSEGV in store, reads it, and leaves nothing behind',
    async () => {
      const { proc, conn, reverse, exited, nextEvent } = startAdapter(lldbDap as string);
      const init = await conn.request('initialize', initializeArgs);
      expect(init.body?.supportsConfigurationDoneRequest).toBe(true);
      expect(conn.capabilities?.supportsConfigurationDoneRequest).toBe(true);

      // lldb-dap answers launch only after configurationDone: send, configure, then await.
      const launched = conn.request('launch', {
        program: fixture('crash'),
        args: ['segv'],
        cwd: fixturesDir,
        stopOnEntry: true,
        stdio: ['/dev/null', '/dev/null', '/dev/null'],
      });
      launched.catch(() => {});
      await nextEvent('initialized', 'after launch');
      await conn.request('configurationDone', undefined);
      await launched;
      const processEvent = (await nextEvent('process', 'the launched program'))
        .body as DebugProtocol.ProcessEvent['body'];
      const programPid = processEvent.systemProcessId as number;
      pids.push(programPid);
      const entry = (await nextEvent('stopped', 'stop on entry')).body as DebugProtocol.StoppedEvent['body'];
      expect(entry.reason).toBe('entry');
      const threadId = entry.threadId as number;
      expect(alive(programPid)).toBe(true);
      const children = descendants(proc.pid);
      expect(describeProcs(children).join('\n')).toContain(`${programPid} crash`);

      await conn.request('continue', { threadId });
      const crash = (await nextEvent('stopped', 'the SIGSEGV')).body as DebugProtocol.StoppedEvent['body'];
      expect(crash.reason).toBe('exception');
      expect(crash.description).toMatch(/^signal SIGSEGV/);
      expect(crash.threadId).toBe(threadId);

      const threads = await conn.request('threads', undefined);
      expect(threads.body.threads.map((t) => t.id)).toContain(threadId);
      const stack = await conn.request('stackTrace', { threadId, levels: 8 });
      const [top] = stack.body.stackFrames;
      expect(top).toMatchObject({ name: 'store', line: 13, source: { name: 'crash.c' } });
      expect(stack.body.stackFrames.map((f) => f.name).slice(0, 4)).toEqual(['store', 'update', 'process', 'main']);
      const scopes = await conn.request('scopes', { frameId: top?.id as number });
      const locals = scopes.body.scopes.find((s) => s.presentationHint === 'locals' || s.name === 'Locals');
      expect(locals, JSON.stringify(scopes.body.scopes)).toBeDefined();
      const variables = await conn.request('variables', { variablesReference: locals?.variablesReference as number });
      const byName = new Map(variables.body.variables.map((v) => [v.name, v]));
      // store(p, value) with p = NULL and value = strlen("widget") * 2.
      expect(byName.get('value')?.value).toBe('12');
      expect(BigInt(byName.get('p')?.value ?? '-1')).toBe(0n);

      await conn.request('disconnect', { terminateDebuggee: true });
      const exit = await Promise.race([
        exited,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error(`lldb-dap still running ${WAIT_MS} ms after disconnect`)), WAIT_MS).unref(),
        ),
      ]);
      expect(exit).toEqual({ code: 0, signal: null });
      await until(() => children.every((p) => !alive(p.pid)), describeProcs(children).join(', '), WAIT_MS);
      expect(alive(programPid)).toBe(false);
      // No runInTerminal was asked for: the program ran on the stdio paths.
      expect(reverse).toEqual([]);
    },
    TEST_MS,
  );

  it(
    'refuses locally a request lldb-dap does not advertise, and the adapter answers the next one',
    async () => {
      const { conn, exited } = startAdapter(lldbDap as string);
      await conn.request('initialize', initializeArgs);
      expect(conn.capabilities?.supportsStepBack).not.toBe(true);
      await expect(conn.request('stepBack', { threadId: 1 })).rejects.toMatchObject({
        code: 'backend_unavailable',
        details: { capability: 'supportsStepBack' },
      });
      // Nothing reached the adapter: before a launch it answers threads with notStopped.
      await expect(conn.request('threads', undefined)).rejects.toMatchObject({
        code: 'debugger_error',
        message: 'notStopped',
      });
      await conn.request('disconnect', {});
      expect(await exited).toEqual({ code: 0, signal: null });
    },
    TEST_MS,
  );
});
