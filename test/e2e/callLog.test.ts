// Every tool call leaves one JSON line on stderr: call id, tool, arguments cut to their caps,
// outcome, duration, session. Replies are not logged: what the program printed or a value read
// from its memory never appears there.
import { describe, expect, it } from 'vitest';
import { startServer } from '../helpers/mcp.js';
import { WAIT_MS } from '../helpers/outcomes.js';
import { fixture } from '../helpers/paths.js';
import { until } from '../helpers/procfs.js';

interface CallRecord {
  time: string;
  level: string;
  message: string;
  callId: number;
  tool: string;
  arguments: Record<string, unknown>;
  outcome: string;
  durationMs: number;
  session?: string;
}

describe('the tool-call log', () => {
  it('one line per call with id, tool, cut arguments, outcome and duration; no reply text', async () => {
    const h = await startServer();
    // Lines the program's terminal passes whole (a line past 4,095 bytes is refused).
    const longText = `${'y'.repeat(99)}\n`.repeat(100);
    const began = Date.now();
    const started = await h.call('dbg_start', {
      program: fixture('stdin_echo'),
      stdin: longText,
      stop: 'main',
      inspect: ['none'],
    });
    const id = started.data.session_id;
    // 3703701 appears nowhere but in the answer (the value computed in the program's context).
    const value = await h.call('dbg_evaluate', { session_id: id, expressions: ['1234567 * 3'] });
    expect(value.data.results[0].value).toBe('3703701');
    const bad = await h.call('dbg_run', { session_id: id, action: 'fly' });
    expect(bad.code).toBe('invalid_argument');
    await h.call('dbg_close', { session_id: id });
    const span = Date.now() - began;
    // stderr is a pipe: the last line may land after the answer.
    const calls = () => h.stderr.map((l) => JSON.parse(l) as CallRecord).filter((r) => r.message === 'tool call');
    await until(() => calls().length >= 4, 'the fourth call record on stderr', WAIT_MS);

    const records = calls();
    expect(records.map((r) => [r.tool, r.outcome])).toEqual([
      ['dbg_start', 'ok'],
      ['dbg_evaluate', 'ok'],
      ['dbg_run', 'error:invalid_argument'],
      ['dbg_close', 'ok'],
    ]);
    const ids = records.map((r) => r.callId);
    expect(new Set(ids).size).toBe(4);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    for (const r of records) {
      expect(r.level).toBe('info');
      expect(Number.isNaN(Date.parse(r.time))).toBe(false);
      // Measured by the server inside the time this test saw the calls take: a duration, not a date.
      expect(r.durationMs).toBeGreaterThanOrEqual(0);
      expect(r.durationMs).toBeLessThanOrEqual(span);
    }
    const [start, evaluate, run, close] = records as [CallRecord, CallRecord, CallRecord, CallRecord];
    // Arguments as sent, a long string cut at 4096 characters with its length said.
    expect(start.arguments['program']).toBe(fixture('stdin_echo'));
    expect(start.arguments['stdin']).toBe(`${longText.slice(0, 4096)}…(10000 chars)`);
    expect(start.session).toBeUndefined();
    expect(evaluate).toMatchObject({ session: id, arguments: { session_id: id, expressions: ['1234567 * 3'] } });
    expect(run.arguments).toEqual({ session_id: id, action: 'fly' });
    expect(close.session).toBe(id);
    // No reply is logged: not the computed value, not the long input echoed back.
    const all = h.stderr.join('\n');
    expect(all).not.toContain('3703701');
    expect(all.split(longText.slice(0, 4097)).length).toBe(1);
    // Every line of stderr is one JSON object: nothing else shares the channel.
    for (const line of h.stderr) expect(() => JSON.parse(line)).not.toThrow();
  });
});

describe('the tool-call log and secrets', () => {
  it('keeps the names of environment variables given to a program, never their values', async () => {
    const h = await startServer();
    const r = await h.call('dbg_start', {
      program: fixture('echo_args'),
      env: { DBG_MCP_PROBE: 'visible-to-the-program', API_TOKEN: 's3cr3t-value' },
      inspect: ['none'],
    });
    expect(r.data.output.text).toContain('probe=visible-to-the-program');
    await new Promise((res) => setTimeout(res, 100));
    const line = h.stderr.find((l) => l.includes('"tool call"') && l.includes('dbg_start'));
    expect(line).toBeDefined();
    expect(line).not.toContain('s3cr3t-value');
    expect(JSON.parse(line as string).arguments.env).toEqual({ DBG_MCP_PROBE: '<redacted>', API_TOKEN: '<redacted>' });
  });
});
