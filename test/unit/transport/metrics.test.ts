// /metrics text: each method the server layer calls shows up as the series it promises.
import { describe, expect, it } from 'vitest';
import { Metrics } from '../../../src/transport/metrics.js';

/** The value of one sample line, e.g. `dbg_mcp_tool_calls_total{tool="dbg_start",outcome="ok"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('Metrics', () => {
  it('counts tool calls by tool and outcome, their duration and answer bytes', async () => {
    const m = new Metrics({ processMetrics: false });
    m.toolCall('dbg_start', 'ok', 120, 2000);
    m.toolCall('dbg_start', 'ok', 30, 1000);
    m.toolCall('dbg_start', 'no_session', 1, 300);
    const text = await m.render();
    expect(sample(text, 'dbg_mcp_tool_calls_total{tool="dbg_start",outcome="ok"}')).toBe(2);
    expect(sample(text, 'dbg_mcp_tool_calls_total{tool="dbg_start",outcome="no_session"}')).toBe(1);
    expect(sample(text, 'dbg_mcp_tool_call_duration_seconds_count{tool="dbg_start"}')).toBe(3);
    expect(sample(text, 'dbg_mcp_tool_call_duration_seconds_sum{tool="dbg_start"}')).toBeCloseTo(0.151, 6);
    expect(sample(text, 'dbg_mcp_tool_call_duration_seconds_bucket{le="0.05",tool="dbg_start"}')).toBe(2);
    expect(sample(text, 'dbg_mcp_answer_bytes_total{tool="dbg_start"}')).toBe(3300);
  });

  it('counts refusals, debugger deaths, sweeps and the processes they killed', async () => {
    const m = new Metrics({ processMetrics: false });
    m.refused('outside_roots');
    m.refused('outside_roots');
    m.debuggerDied('gdb');
    m.reaped('alice');
    m.sweep(0);
    m.sweep(3);
    m.httpRefused('bad_token');
    const text = await m.render();
    expect(sample(text, 'dbg_mcp_refused_inputs_total{reason="outside_roots"}')).toBe(2);
    expect(sample(text, 'dbg_mcp_debugger_deaths_total{backend="gdb"}')).toBe(1);
    expect(sample(text, 'dbg_mcp_sessions_reaped_total{client="alice"}')).toBe(1);
    expect(sample(text, 'dbg_mcp_leftover_sweeps_total')).toBe(2);
    expect(sample(text, 'dbg_mcp_leftover_processes_total')).toBe(3);
    expect(sample(text, 'dbg_mcp_http_refusals_total{reason="bad_token"}')).toBe(1);
  });

  it('reads open sessions when scraped, by backend and state and by client, each seen one at 0 when none', async () => {
    const m = new Metrics({ processMetrics: false });
    let open = [
      { backend: 'gdb', state: 'stopped', client: 'alice' },
      { backend: 'gdb', state: 'stopped', client: 'bob' },
      { backend: 'gdb', state: 'running', client: 'alice' },
    ];
    m.observeSessions(() => open);
    let text = await m.render();
    expect(sample(text, 'dbg_mcp_sessions{backend="gdb",state="stopped"}')).toBe(2);
    expect(sample(text, 'dbg_mcp_sessions{backend="gdb",state="running"}')).toBe(1);
    expect(sample(text, 'dbg_mcp_sessions{backend="gdb",state="dead"}')).toBe(0);
    expect(sample(text, 'dbg_mcp_client_sessions{client="alice"}')).toBe(2);
    expect(sample(text, 'dbg_mcp_client_sessions{client="bob"}')).toBe(1);
    open = [];
    text = await m.render();
    expect(sample(text, 'dbg_mcp_sessions{backend="gdb",state="stopped"}')).toBe(0);
    expect(sample(text, 'dbg_mcp_client_sessions{client="alice"}')).toBe(0);
  });

  it('reads the transport figures when scraped', async () => {
    const m = new Metrics({ processMetrics: false });
    m.observeTransport(() => ({ inFlight: 3, mcpSessions: 2 }));
    const text = await m.render();
    expect(sample(text, 'dbg_mcp_http_requests_in_flight')).toBe(3);
    expect(sample(text, 'dbg_mcp_mcp_sessions')).toBe(2);
  });

  it('adds the process figures unless told not to', async () => {
    expect(await new Metrics().render()).toMatch(/^dbg_mcp_process_resident_memory_bytes \d+/m);
    expect(await new Metrics({ processMetrics: false }).render()).not.toMatch(/process_resident_memory_bytes/);
  });
});
