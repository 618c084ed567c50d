// --http HOST:PORT: parsing, what counts as loopback, which Host names are let in, and the
// refusal of a non-loopback bind without --allow-remote and a token file.
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { allowedHostnames, isLoopbackHost, mcpUrl, parseListenAddress } from '../../../src/transport/listenAddress.js';
import { checkExposure } from '../../../src/transport/serveNetwork.js';
import { defaultTransportConfig } from '../../../src/transport/transportConfig.js';

describe('parseListenAddress', () => {
  it('reads host and port, IPv6 in brackets', () => {
    expect(parseListenAddress('127.0.0.1:8080')).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(parseListenAddress('localhost:0')).toEqual({ host: 'localhost', port: 0 });
    expect(parseListenAddress('[::1]:9000')).toEqual({ host: '::1', port: 9000 });
  });

  it('refuses what is not HOST:PORT, saying what it wanted', () => {
    for (const bad of [
      '8080',
      '127.0.0.1',
      '127.0.0.1:',
      ':8080',
      '::1:8080',
      '[localhost]:80',
      'a:b',
      '127.0.0.1:99999',
    ]) {
      expect(() => parseListenAddress(bad), bad).toThrow(/HOST:PORT|IPv6|out of range/);
    }
  });
});

describe('isLoopbackHost', () => {
  it('takes loopback addresses and the name localhost, and nothing else', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1', 'localhost'])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.1', 'example.com', 'localhost.example.com', '128.0.0.1']) {
      expect(isLoopbackHost(h), h).toBe(false);
    }
  });
});

describe('allowedHostnames', () => {
  it('on loopback lets in the loopback names only, so a rebound DNS name is refused', () => {
    expect(allowedHostnames({ host: '127.0.0.1', port: 1 }).sort()).toEqual(['127.0.0.1', '[::1]', 'localhost']);
  });

  it('beyond loopback adds the bound address and this machine name', () => {
    const names = allowedHostnames({ host: '10.1.2.3', port: 1 });
    expect(names).toContain('10.1.2.3');
    expect(names).toContain(hostname());
    expect(allowedHostnames({ host: 'fd00::1', port: 1 })).toContain('[fd00::1]');
  });

  it('writes the MCP URL with the port and IPv6 brackets', () => {
    expect(mcpUrl({ host: '::1', port: 8080 })).toBe('http://[::1]:8080/mcp');
    expect(mcpUrl({ host: '127.0.0.1', port: 1 })).toBe('http://127.0.0.1:1/mcp');
  });
});

describe('checkExposure', () => {
  const config = (over: Partial<ReturnType<typeof defaultTransportConfig>>) => ({
    ...defaultTransportConfig(),
    ...over,
  });

  it('serves loopback with or without tokens', () => {
    expect(() => checkExposure(config({ http: { host: '127.0.0.1', port: 0 } }))).not.toThrow();
    expect(() => checkExposure(config({ unix: '/run/x.sock' }))).not.toThrow();
  });

  it('refuses another address without --allow-remote, and without a token file even with it', () => {
    expect(() => checkExposure(config({ http: { host: '0.0.0.0', port: 8080 } }))).toThrow(
      /--http 0.0.0.0:8080 is not a loopback address: serving beyond this machine needs --allow-remote and --token-file/,
    );
    expect(() => checkExposure(config({ http: { host: '0.0.0.0', port: 8080 }, allowRemote: true }))).toThrow(
      /with --allow-remote needs --token-file/,
    );
    expect(() =>
      checkExposure(config({ http: { host: '0.0.0.0', port: 8080 }, allowRemote: true, tokenFile: '/t' })),
    ).not.toThrow();
  });
});
