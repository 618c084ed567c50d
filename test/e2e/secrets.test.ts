// Secrets in the server's environment (an MCP client starts it with the agent's: API keys,
// tokens, cloud credentials) reach neither gdb nor the program: both get an allowlist. The program
// prints its whole environment; gdb's is read from /proc. DBG_MCP_PASSTHROUGH_ENV names extras.
import { describe, expect, it } from 'vitest';
import { startServer } from '../helpers/mcp.js';
import { fixture } from '../helpers/paths.js';
import { environOf } from '../helpers/procfs.js';

const SECRETS = {
  GITHUB_TOKEN: 'ghp_s3cr3t',
  AWS_SECRET_ACCESS_KEY: 'aws-s3cr3t',
  AWS_ACCESS_KEY_ID: 'AKIAS3CR3T',
  MY_API_KEY: 'my-s3cr3t',
  OPENAI_API_KEY: 'sk-s3cr3t',
  DB_PASSWORD: 'db-s3cr3t',
  SSH_AUTH_SOCK: '/tmp/agent.s3cr3t',
  GOOGLE_APPLICATION_CREDENTIALS: '/home/x/s3cr3t.json',
};
const ALLOWED = { LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', TZ: 'UTC', TERM: 'xterm-256color', USER: 'agent' };

/** The program's environment as it printed it, and gdb's as the kernel keeps it. */
async function environments(serverEnv: Record<string, string>, startArgs: Record<string, unknown> = {}) {
  const h = await startServer([], serverEnv);
  const r = await h.call('dbg_start', { program: fixture('print_env'), ...startArgs });
  expect(r.data.outcome, r.text).toMatchObject({ kind: 'exited', exit_code: 0 });
  const text = (await h.call('dbg_io', { session_id: r.data.session_id, action: 'read', cursor: 0 })).data.text;
  const body = /^env:\n([\s\S]*)end\n/.exec(text)?.[1] ?? '';
  const program = new Map(
    body
      .split('\n')
      .filter(Boolean)
      .map((l: string) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as [string, string]),
  );
  const listed = (await h.call('dbg_sessions', {})).data.sessions[0];
  const gdb = environOf(listed.debugger_pid);
  return { program, gdb, text };
}

describe('secrets and the environment', () => {
  it('no secret reaches gdb or the program; the allowlisted basics and dbg_start.env do', async () => {
    const { program, gdb, text } = await environments(
      { ...SECRETS, ...ALLOWED },
      { env: { FROM_AGENT: 'yes' }, args: [] },
    );
    for (const [name, value] of Object.entries(SECRETS)) {
      expect(program.has(name), `program got ${name}`).toBe(false);
      expect(gdb.has(name), `gdb got ${name}`).toBe(false);
      expect(text).not.toContain(value);
      expect([...gdb.values()].join('\n')).not.toContain(value);
    }
    for (const [name, value] of Object.entries(ALLOWED)) {
      expect(program.get(name), name).toBe(value);
      expect(gdb.get(name), name).toBe(value);
    }
    expect(program.get('FROM_AGENT')).toBe('yes');
    // Nothing else: the allowlist, what the agent added, and what GDB itself sets for a program
    // (the terminal size it was told); SHELL is GDB's own (the launcher, gdbLaunch.ts) and is unset.
    const allowed = /^(PATH|HOME|USER|LOGNAME|LANG|LC_\w+|TERM|TZ|TMPDIR|FROM_AGENT|LINES|COLUMNS)$/;
    expect([...program.keys()].filter((k) => !allowed.test(k))).toEqual([]);
    expect([...gdb.keys()].filter((k) => !allowed.test(k) && k !== 'SHELL')).toEqual([]);
  });

  it('DBG_MCP_PASSTHROUGH_ENV passes the variables it names, and only those', async () => {
    const { program, gdb } = await environments({ ...SECRETS, DBG_MCP_PASSTHROUGH_ENV: 'MY_API_KEY,DB_PASSWORD' });
    expect(program.get('MY_API_KEY')).toBe(SECRETS.MY_API_KEY);
    expect(program.get('DB_PASSWORD')).toBe(SECRETS.DB_PASSWORD);
    expect(gdb.get('MY_API_KEY')).toBe(SECRETS.MY_API_KEY);
    for (const name of Object.keys(SECRETS).filter((n) => n !== 'MY_API_KEY' && n !== 'DB_PASSWORD')) {
      expect(program.has(name), name).toBe(false);
      expect(gdb.has(name), name).toBe(false);
    }
  });
});
