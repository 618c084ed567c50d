// Resources: the guide (how to diagnose with these tools), the list of sessions, and one session's
// state as JSON. Read-only views of what the tools report; nothing here changes a session. As with
// the tools, a client sees only the sessions it holds.

import { type McpServer, ResourceNotFoundError, ResourceTemplate } from '@modelcontextprotocol/server';
import { rrRecorder } from '../backends/registry.js';
import type { Session } from '../session/session.js';
import type { SessionManager } from '../session/sessionManager.js';
import { clientName } from './clientName.js';
import { backendPaths, type ServerConfig } from './config.js';
import { guideMarkdown } from './guide.js';
import { listSessions, sessionEntry, whereNow } from './tools/sessions.js';
import { breakpointWire, compact, exitWire, stopWire, type Wire } from './wire.js';

const JSON_TYPE = 'application/json';

/** Everything the session knows without asking the debugger: state, stop, breakpoints, threads. */
export function sessionDetail(session: Session): Wire {
  const snap = session.snapshot;
  const st = snap.state;
  return compact({
    ...sessionEntry(session),
    debugger: session.debugger.version,
    last_stop: st.phase === 'stopped' ? stopWire(st.stop, snap.stopId) : undefined,
    exit: st.phase === 'exited' ? exitWire(st.exit) : undefined,
    reason: st.phase === 'dead' ? st.reason : undefined,
    breakpoints: [...snap.breakpoints.values()].map(breakpointWire),
    threads: [...snap.threads].map(([id, group]) => ({ id, inferior: group })),
    inferiors: [...snap.inferiors].map(([group, pid]) => ({ id: group, pid })),
    libraries: snap.libraries.length,
    output_cursor: session.outputEnd,
    warnings: session.warnings.length > 0 ? [...session.warnings] : undefined,
  });
}

function json(uri: URL, value: unknown) {
  return { contents: [{ uri: uri.href, mimeType: JSON_TYPE, text: JSON.stringify(value, null, 2) }] };
}

export function registerResources(server: McpServer, sessions: SessionManager, config: ServerConfig): void {
  server.registerResource(
    'guide',
    'dbg://guide',
    {
      title: 'How to debug with dbg-mcp',
      description: 'Crash, hang and wrong-value workflows as tool calls; stop ids; bounds; what each view holds.',
      mimeType: 'text/markdown',
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: guideMarkdown(config) }] }),
  );

  server.registerResource(
    'sessions',
    'dbg://sessions',
    {
      title: 'Open sessions',
      description: 'The same list as dbg_sessions, as JSON.',
      mimeType: JSON_TYPE,
    },
    async (uri, ctx) => json(uri, listSessions(sessions, clientName(ctx))),
  );

  server.registerResource(
    'traces',
    'dbg://traces',
    {
      title: 'rr traces',
      description:
        'Recordings under the rr trace directory: program, date, size, processes and exit statuses, newest first.',
      mimeType: JSON_TYPE,
    },
    async (uri) => {
      const traces = await rrRecorder.list(backendPaths(config), config.rrTraceDir, 100);
      return json(uri, { trace_dir: config.rrTraceDir, traces });
    },
  );

  server.registerResource(
    'session',
    new ResourceTemplate('dbg://session/{id}', {
      list: async (ctx) => ({
        resources: sessions.list(clientName(ctx)).map((s) => ({
          uri: `dbg://session/${s.id}`,
          name: `session ${s.id}`,
          description: `${s.target.program}: ${whereNow(s)}`,
          mimeType: JSON_TYPE,
        })),
      }),
    }),
    {
      title: 'One session',
      description: 'State, last stop, breakpoints, threads, inferiors, library count and warnings, as JSON.',
      mimeType: JSON_TYPE,
    },
    async (uri, variables, ctx) => {
      const raw = variables['id'];
      const id = Array.isArray(raw) ? raw[0] : raw;
      const session = sessions.list(clientName(ctx)).find((s) => s.id === id);
      if (!session) {
        throw new ResourceNotFoundError(
          uri.href,
          `no session ${JSON.stringify(id)} is open (dbg://sessions lists them)`,
        );
      }
      return json(uri, sessionDetail(session));
    },
  );
}
