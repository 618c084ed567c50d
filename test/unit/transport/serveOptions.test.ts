// The serve flags of the transports, as src/cli/options.ts reads them (flags and variables).
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../../src/cli/options.js';

describe('serve transport options', () => {
  it('defaults to stdio: no listener, no tokens', () => {
    expect(parseCommandLine([], {}).transport).toEqual({
      http: undefined,
      unix: undefined,
      tokenFile: undefined,
      allowRemote: false,
    });
    expect(parseCommandLine([], {}).config.clientSessions).toBeUndefined();
  });

  it('reads every flag, with --allow-remote standing alone', () => {
    const { command, transport, config } = parseCommandLine(
      [
        'serve',
        '--http',
        '[::1]:8080',
        '--unix',
        '/run/d.sock',
        '--token-file',
        '/etc/t',
        '--allow-remote',
        '--client-sessions',
        '4',
        '--max-sessions',
        '32',
      ],
      {},
    );
    expect(command).toBe('serve');
    expect(transport).toEqual({
      http: { host: '::1', port: 8080 },
      unix: '/run/d.sock',
      tokenFile: '/etc/t',
      allowRemote: true,
    });
    // The quota is the session manager's: it holds on every transport, stdio too.
    expect(config.clientSessions).toBe(4);
    expect(config.maxSessions).toBe(32);
  });

  it('takes --allow-remote as the last flag, with a value, or with =', () => {
    expect(parseCommandLine(['--allow-remote'], {}).transport.allowRemote).toBe(true);
    expect(parseCommandLine(['--allow-remote', 'off'], {}).transport.allowRemote).toBe(false);
    expect(parseCommandLine(['--allow-remote=on'], {}).transport.allowRemote).toBe(true);
  });

  it('reads the DBG_MCP_* variables, and a flag wins over its variable', () => {
    const env = {
      DBG_MCP_HTTP: '127.0.0.1:0',
      DBG_MCP_TOKEN_FILE: '/t',
      DBG_MCP_ALLOW_REMOTE: 'yes',
      DBG_MCP_CLIENT_SESSIONS: '2',
    };
    expect(parseCommandLine([], env).transport).toMatchObject({
      http: { host: '127.0.0.1', port: 0 },
      tokenFile: '/t',
      allowRemote: true,
    });
    expect(parseCommandLine([], env).config.clientSessions).toBe(2);
    expect(parseCommandLine(['--http', 'localhost:9'], env).transport.http).toEqual({ host: 'localhost', port: 9 });
  });

  it('refuses unusable values with the flag or variable in the message', () => {
    expect(() => parseCommandLine(['--http', '8080'], {})).toThrow(/--http: "8080" is not HOST:PORT/);
    expect(() => parseCommandLine([], { DBG_MCP_HTTP: 'x' })).toThrow(/DBG_MCP_HTTP: "x" is not HOST:PORT/);
    expect(() => parseCommandLine(['--client-sessions', '0'], {})).toThrow(/--client-sessions: 0 is out of range/);
    expect(() => parseCommandLine(['--unix', ' '], {})).toThrow(/--unix: the value is empty/);
    expect(() => parseCommandLine(['--token-file'], {})).toThrow(/--token-file needs a value/);
  });
});
