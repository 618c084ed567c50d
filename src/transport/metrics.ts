// What /metrics reports (Prometheus text, prom-client 15), on a registry of its own so a test or
// a second server in the process never mixes series. The server layer calls toolCall, refused,
// debuggerDied, reaped and sweep where those things happen; session counts (by backend and
// state, and by client) and the transport's own figures are read when /metrics is scraped,
// through the callbacks given to observe*. Client names come from the token file (or are
// `local`, `loopback`): the operator's few names, so a label of them stays small.

import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export interface SessionSample {
  backend: string;
  state: string;
  /** Who holds it. */
  client: string;
}

export interface TransportSample {
  /** HTTP requests being answered now (/mcp, /metrics). */
  inFlight: number;
  /** 2025-era MCP sessions (Mcp-Session-Id) held open. */
  mcpSessions: number;
}

/** The session states of the evidence model, reported at 0 too so a series does not vanish. */
const STATES = ['starting', 'loaded', 'stopped', 'running', 'exited', 'dead'];

/**
 * Seconds. Most calls answer in 5-50 ms; a run waits up to its timeout_ms (30 s by default, an
 * hour at most), so the buckets reach that far.
 */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600];

export class Metrics {
  readonly registry = new Registry();
  private readonly calls: Counter<'tool' | 'outcome'>;
  private readonly duration: Histogram<'tool'>;
  private readonly answerBytes: Counter<'tool'>;
  private readonly refusedInputs: Counter<'reason'>;
  private readonly deaths: Counter<'backend'>;
  private readonly reapedSessions: Counter<'client'>;
  private readonly sweeps: Counter;
  private readonly swept: Counter;
  private readonly httpRefusals: Counter<'reason'>;
  private sessionSource: () => Iterable<SessionSample> = () => [];
  private transportSource: () => TransportSample = () => ({ inFlight: 0, mcpSessions: 0 });
  private readonly backendsSeen = new Set<string>();
  private readonly clientsSeen = new Set<string>();

  constructor(options: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.calls = new Counter({
      name: 'dbg_mcp_tool_calls_total',
      help: 'Tool calls answered, by tool and outcome (ok, or the error code).',
      labelNames: ['tool', 'outcome'],
      registers,
    });
    this.duration = new Histogram({
      name: 'dbg_mcp_tool_call_duration_seconds',
      help: 'Time from a tool call received to its answer.',
      labelNames: ['tool'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.answerBytes = new Counter({
      name: 'dbg_mcp_answer_bytes_total',
      help: 'Bytes of tool answers (the JSON of each result).',
      labelNames: ['tool'],
      registers,
    });
    this.refusedInputs = new Counter({
      name: 'dbg_mcp_refused_inputs_total',
      help: 'Tool inputs refused before reaching a debugger, by reason.',
      labelNames: ['reason'],
      registers,
    });
    this.deaths = new Counter({
      name: 'dbg_mcp_debugger_deaths_total',
      help: 'Debugger processes that died under an open session.',
      labelNames: ['backend'],
      registers,
    });
    this.reapedSessions = new Counter({
      name: 'dbg_mcp_sessions_reaped_total',
      help: 'Sessions closed because nobody used them for the idle timeout, by the client that held them.',
      labelNames: ['client'],
      registers,
    });
    this.sweeps = new Counter({
      name: 'dbg_mcp_leftover_sweeps_total',
      help: 'Sweeps for processes a closed session left behind.',
      registers,
    });
    this.swept = new Counter({
      name: 'dbg_mcp_leftover_processes_total',
      help: 'Processes those sweeps found and killed.',
      registers,
    });
    this.httpRefusals = new Counter({
      name: 'dbg_mcp_http_refusals_total',
      help: 'HTTP requests refused before MCP: no_token, bad_token, bad_host, bad_origin, shutting_down.',
      labelNames: ['reason'],
      registers,
    });
    const self = this;
    new Gauge({
      name: 'dbg_mcp_sessions',
      help: 'Open debugging sessions, by backend and state.',
      labelNames: ['backend', 'state'],
      registers,
      collect() {
        this.reset();
        const counts = new Map<string, number>();
        for (const s of self.sessionSource()) {
          self.backendsSeen.add(s.backend);
          const key = `${s.backend}\0${s.state}`;
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
        for (const backend of self.backendsSeen) {
          for (const state of STATES) this.set({ backend, state }, counts.get(`${backend}\0${state}`) ?? 0);
        }
        for (const [key, n] of counts) {
          const [backend = '', state = ''] = key.split('\0');
          if (!STATES.includes(state)) this.set({ backend, state }, n);
        }
      },
    });
    new Gauge({
      name: 'dbg_mcp_client_sessions',
      help: 'Open debugging sessions by the client that holds them (--client-sessions caps each).',
      labelNames: ['client'],
      registers,
      collect() {
        this.reset();
        const counts = new Map<string, number>();
        for (const s of self.sessionSource()) {
          self.clientsSeen.add(s.client);
          counts.set(s.client, (counts.get(s.client) ?? 0) + 1);
        }
        for (const client of self.clientsSeen) this.set({ client }, counts.get(client) ?? 0);
      },
    });
    new Gauge({
      name: 'dbg_mcp_http_requests_in_flight',
      help: 'HTTP requests being answered.',
      registers,
      collect() {
        this.set(self.transportSource().inFlight);
      },
    });
    new Gauge({
      name: 'dbg_mcp_mcp_sessions',
      help: 'MCP sessions (2025-era Mcp-Session-Id) held open by HTTP clients.',
      registers,
      collect() {
        this.set(self.transportSource().mcpSessions);
      },
    });
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'dbg_mcp_' });
  }

  /** One answered tool call: outcome is `ok` or the error code; ms its duration; bytes its size. */
  toolCall(tool: string, outcome: string, ms: number, bytes: number): void {
    this.calls.inc({ tool, outcome });
    this.duration.observe({ tool }, ms / 1000);
    this.answerBytes.inc({ tool }, bytes);
  }

  /** An input refused before a debugger saw it (a policy, a schema, a quota), by reason. */
  refused(reason: string): void {
    this.refusedInputs.inc({ reason });
  }

  debuggerDied(backend: string): void {
    this.deaths.inc({ backend });
  }

  /** A session closed for idleness (its client went away, or forgot it). */
  reaped(client: string): void {
    this.reapedSessions.inc({ client });
  }

  /** One sweep after a close, and how many leftover processes it killed. */
  sweep(count: number): void {
    this.sweeps.inc();
    if (count > 0) this.swept.inc(count);
  }

  httpRefused(reason: string): void {
    this.httpRefusals.inc({ reason });
  }

  /** Where the sessions gauge reads the open sessions when /metrics is scraped. */
  observeSessions(source: () => Iterable<SessionSample>): void {
    this.sessionSource = source;
  }

  observeTransport(source: () => TransportSample): void {
    this.transportSource = source;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
