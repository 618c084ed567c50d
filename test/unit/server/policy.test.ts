// The attach and remote allowlists: what each policy lets through and how a refusal reads.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../../src/cli/options.js';
import {
  type AttachPolicy,
  checkAttachAllowed,
  checkNetworkAttach,
  checkRemoteAllowed,
  DEFAULT_REMOTE_HOSTS,
  hostMatches,
  type PolicyConfig,
  type ProcessFacts,
  parseAttachPolicy,
  parseRemoteHosts,
  readProcessFacts,
} from '../../../src/server/policy.js';

const config = (attachPids: AttachPolicy, remoteHosts: readonly string[] = DEFAULT_REMOTE_HOSTS): PolicyConfig => ({
  attachPids,
  remoteHosts,
});

/** Facts of a made-up machine: pid 500 is ours (uid 1000), 600 is root's, 42 started the server. */
function facts(pid: number): ProcessFacts {
  const uid = pid === 600 ? 0 : [500, 42, 4242].includes(pid) ? 1000 : undefined;
  return { uid, ancestors: [4242, 42], ownUid: 1000 };
}

function refusal(f: () => unknown): { code: string; message: string; fields: unknown } {
  try {
    f();
  } catch (e) {
    const err = e as { code: string; message: string; details?: { fields?: unknown } };
    return { code: err.code, message: err.message, fields: err.details?.fields };
  }
  throw new Error('expected a refusal');
}

describe('checkAttachAllowed', () => {
  it('own (default): the server user’s processes only', () => {
    expect(() => checkAttachAllowed(500, config('own'), facts)).not.toThrow();
    const r = refusal(() => checkAttachAllowed(600, config('own'), facts));
    expect(r).toMatchObject({ code: 'invalid_argument', fields: ['pid'] });
    expect(r.message).toMatch(/uid 0.*--attach-pids any/);
  });

  it('any: other users’ processes too', () => {
    expect(() => checkAttachAllowed(600, config('any'), facts)).not.toThrow();
  });

  it('a list: exactly those pids, whoever owns them', () => {
    expect(() => checkAttachAllowed(600, config([600, 700]), facts)).not.toThrow();
    expect(refusal(() => checkAttachAllowed(500, config([600, 700]), facts)).message).toMatch(
      /not in the allowed list \(--attach-pids 600,700\)/,
    );
  });

  it("the server's own processes (a session's debugger or program, the pool): refused under any policy", () => {
    const own = (pid: number): ProcessFacts => ({ ...facts(pid), serverOwned: pid === 500 });
    expect(refusal(() => checkAttachAllowed(500, config('any'), own)).message).toMatch(
      /^pid: 500 is one of this server's own processes/,
    );
    expect(refusal(() => checkAttachAllowed(500, config([500]), own)).message).toMatch(/this server's own processes/);
  });

  it('network clients attach only where the operator set --attach-pids; stdio keeps the default', () => {
    expect(() => checkNetworkAttach({ attachPidsFromOperator: false }, 'stdio')).not.toThrow();
    expect(refusal(() => checkNetworkAttach({ attachPidsFromOperator: false }, 'alice')).message).toMatch(
      /attaching is off for clients over HTTP .* --attach-pids/,
    );
    expect(() => checkNetworkAttach({ attachPidsFromOperator: true }, 'loopback')).not.toThrow();
    expect(parseCommandLine([], {}).config.attachPidsFromOperator).toBe(false);
    expect(parseCommandLine(['--attach-pids', 'own'], {}).config.attachPidsFromOperator).toBe(true);
    expect(parseCommandLine([], { DBG_MCP_ATTACH_PIDS: 'any' }).config.attachPidsFromOperator).toBe(true);
  });

  it('none: nothing', () => {
    expect(refusal(() => checkAttachAllowed(500, config('none'), facts)).message).toMatch(/attaching is off/);
  });

  it.each([
    [1, /not a process that can be attached/],
    [0, /not a process/],
    [-5, /not a process/],
    [1.5, /not a process/],
    [777, /no process 777 is running/],
    [42, /started it; attaching would freeze the client/],
    [4242, /this server/],
  ])('whatever the policy, refuses pid %d', (pid, why) => {
    expect(refusal(() => checkAttachAllowed(pid, config('any'), facts)).message).toMatch(why);
  });

  it('reads real processes: a child of ours is allowed, this process, its parent and init are not', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const pid = child.pid as number;
      expect(readProcessFacts(pid).uid).toBe(process.getuid?.());
      expect(() => checkAttachAllowed(pid, config('own'))).not.toThrow();
      expect(refusal(() => checkAttachAllowed(process.pid, config('any'))).message).toMatch(/this server/);
      expect(refusal(() => checkAttachAllowed(process.ppid, config('any'))).message).toMatch(/started it/);
      expect(refusal(() => checkAttachAllowed(1, config('any'))).code).toBe('invalid_argument');
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('checkRemoteAllowed', () => {
  it.each([
    ['localhost:1234', 'localhost:1234'],
    ['127.0.0.1:2345', '127.0.0.1:2345'],
    ['127.1.2.3:1', '127.1.2.3:1'],
    ['tcp:localhost:65535', 'localhost:65535'],
    ['[::1]:1234', '[::1]:1234'],
    ['[::ffff:127.0.0.1]:1234', '[::ffff:127.0.0.1]:1234'],
    ['LOCALHOST:99', 'localhost:99'],
  ])('loopback by default: %s', (text, address) => {
    expect(checkRemoteAllowed(text, config('own')).address).toBe(address);
  });

  it.each([
    ['10.0.0.5:1234', /10\.0\.0\.5 is not an allowed remote host \(allowed: localhost, 127\.0\.0\.0\/8, ::1\)/],
    ['example.com:1234', /example\.com is not an allowed/],
    ['[::2]:1234', /::2 is not an allowed/],
    ['localhost.evil.com:1', /not an allowed/],
    ['127.0.0.1', /not host:port/],
    ['127.0.0.1:0', /port 0 is out of range/],
    ['127.0.0.1:70000', /port 70000 is out of range/],
    ['| gdbserver - ./prog', /pipe to a command/],
    ['/dev/ttyS0', /not host:port/],
    ['udp:127.0.0.1:1234', /not host:port/],
    ['[localhost]:1234', /not host:port|not an IPv6/],
    ['127.0.0.1:1234 ; x', /not host:port/],
  ])('refuses %s', (text, why) => {
    const r = refusal(() => checkRemoteAllowed(text, config('own')));
    expect(r).toMatchObject({ code: 'invalid_argument', fields: ['remote'] });
    expect(r.message).toMatch(why);
  });

  it('an operator list: names with wildcards, CIDR blocks, addresses, or anything', () => {
    const lab = config('own', ['*.lab.example', '10.1.0.0/16', 'fd00::/8', '192.168.1.7']);
    expect(checkRemoteAllowed('board1.lab.example:3333', lab).host).toBe('board1.lab.example');
    expect(checkRemoteAllowed('10.1.200.3:3333', lab).port).toBe(3333);
    expect(checkRemoteAllowed('[fd12::1]:3333', lab).address).toBe('[fd12::1]:3333');
    expect(checkRemoteAllowed('192.168.1.7:3333', lab).host).toBe('192.168.1.7');
    for (const bad of ['lab.example:1', '10.2.0.1:1', '192.168.1.8:1', 'localhost:1', '[fe80::1]:1']) {
      expect(() => checkRemoteAllowed(bad, lab), bad).toThrow(/not an allowed remote host/);
    }
    expect(checkRemoteAllowed('anything.at.all:1', config('own', ['*'])).port).toBe(1);
  });

  it('matches addresses by value, not by spelling', () => {
    expect(hostMatches('0:0:0:0:0:0:0:1', '::1')).toBe(true);
    expect(hostMatches('::ffff:127.0.0.9', '127.0.0.0/8')).toBe(true);
    expect(hostMatches('127.0.0.1', 'localhost')).toBe(false);
    expect(hostMatches('localhost', '127.0.0.1')).toBe(false);
    expect(hostMatches('a.b.lab', '*.lab')).toBe(true);
    expect(hostMatches('lab', '*.lab')).toBe(false);
  });
});

describe('policy settings', () => {
  it('parse from flags and environment, and refuse values that mean nothing', () => {
    expect(parseAttachPolicy('ANY')).toBe('any');
    expect(parseAttachPolicy('12, 34')).toEqual([12, 34]);
    expect(() => parseAttachPolicy('1')).toThrow(/not none, own, any/);
    expect(() => parseAttachPolicy('12,x')).toThrow(/not none, own, any/);
    expect(parseRemoteHosts('*.lab, 10.0.0.0/8 ,::1')).toEqual(['*.lab', '10.0.0.0/8', '::1']);
    expect(() => parseRemoteHosts('')).toThrow(/no host pattern/);
    expect(() => parseRemoteHosts('bad host')).toThrow(/"bad host" is not a host name/);
    expect(() => parseRemoteHosts('10.0.0.0/x')).toThrow(/not a host name/);

    const defaults = parseCommandLine([], {}).config;
    expect(defaults.attachPids).toBe('own');
    expect(defaults.remoteHosts).toEqual(['localhost', '127.0.0.0/8', '::1']);
    const set = parseCommandLine(['--attach-pids', 'any', '--remote-hosts', '*.lab'], {
      DBG_MCP_REMOTE_HOSTS: '10.0.0.0/8',
    }).config;
    expect(set.attachPids).toBe('any');
    expect(set.remoteHosts).toEqual(['*.lab']);
    expect(parseCommandLine([], { DBG_MCP_ATTACH_PIDS: '99' }).config.attachPids).toEqual([99]);
    expect(() => parseCommandLine(['--attach-pids', 'everyone'], {})).toThrow(/--attach-pids: "everyone"/);
    expect(() => parseCommandLine([], { DBG_MCP_REMOTE_HOSTS: 'a b' })).toThrow(/DBG_MCP_REMOTE_HOSTS/);
  });
});

describe('--wine-prefix', () => {
  it('reaches the backends only when given: the server keeps its own prefix otherwise', async () => {
    const { sessionManagerOptions } = await import('../../../src/server/createServer.js');
    const none = parseCommandLine([], {}).config;
    expect(none.winePrefix).toBeUndefined();
    expect(sessionManagerOptions(none).backends).not.toHaveProperty('winePrefix');
    const given = parseCommandLine(['--wine-prefix', '/home/me/.wine', '--attach-pids', 'any'], {}).config;
    expect(sessionManagerOptions(given).backends).toMatchObject({ winePrefix: '/home/me/.wine', attachPids: 'any' });
    expect(parseCommandLine([], { DBG_MCP_WINE_PREFIX: '/w' }).config.winePrefix).toBe('/w');
    expect(() => parseCommandLine(['--wine-prefix', ''], {})).toThrow(/--wine-prefix/);
  });
});
