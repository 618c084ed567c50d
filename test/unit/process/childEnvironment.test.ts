import { describe, expect, it } from 'vitest';
import { childEnvironment, isAllowedByDefault } from '../../../src/process/childEnvironment.js';

const source: NodeJS.ProcessEnv = {
  PATH: '/opt/bin:/usr/bin',
  HOME: '/home/agent',
  USER: 'agent',
  LOGNAME: 'agent',
  LANG: 'C.UTF-8',
  TERM: 'xterm',
  TZ: 'UTC',
  TMPDIR: '/tmp/x',
  LC_ALL: 'C',
  LC_CTYPE: 'en_US.UTF-8',
  LC_IDENTIFICATION: 'C',
  LC_SECRET_TOKEN: 'lc-secret',
  LC_TERMINAL: 'iTerm2',
  GITHUB_TOKEN: 'ghp_secret',
  AWS_SECRET_ACCESS_KEY: 'aws-secret',
  AWS_ACCESS_KEY_ID: 'AKIA',
  ANTHROPIC_API_KEY: 'sk-ant',
  OPENAI_API_KEY: 'sk-openai',
  NPM_TOKEN: 'npm',
  SSH_AUTH_SOCK: '/tmp/ssh.sock',
  LD_PRELOAD: '/evil.so',
  NODE_OPTIONS: '--inspect',
  MY_APP_SETTING: 'on',
  EMPTY: '',
  UNSET: undefined,
};

describe('childEnvironment', () => {
  const env = childEnvironment(source);

  it.each([
    'GITHUB_TOKEN',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_ACCESS_KEY_ID',
    'ANTHROPIC_API_KEY',
    'OPENAI_API_KEY',
    'NPM_TOKEN',
    'SSH_AUTH_SOCK',
    'LD_PRELOAD',
    'NODE_OPTIONS',
    'MY_APP_SETTING',
  ])('never passes %s by default', (name) => {
    expect(env).not.toHaveProperty(name);
  });

  it('no secret value appears anywhere in the result', () => {
    const values = Object.values(env).join('\n');
    for (const secret of ['ghp_secret', 'aws-secret', 'sk-ant', 'sk-openai', 'AKIA']) {
      expect(values).not.toContain(secret);
    }
  });

  it('passes the allowlisted basics unchanged', () => {
    expect(env).toMatchObject({
      PATH: '/opt/bin:/usr/bin',
      HOME: '/home/agent',
      USER: 'agent',
      LOGNAME: 'agent',
      LANG: 'C.UTF-8',
      TERM: 'xterm',
      TZ: 'UTC',
      TMPDIR: '/tmp/x',
    });
  });

  it('passes the real locale categories', () => {
    expect(env['LC_ALL']).toBe('C');
    expect(env['LC_CTYPE']).toBe('en_US.UTF-8');
    expect(env['LC_IDENTIFICATION']).toBe('C');
  });

  it('does not pass other variables that merely start with LC_', () => {
    expect(env).not.toHaveProperty('LC_SECRET_TOKEN');
    expect(env).not.toHaveProperty('LC_TERMINAL');
    expect(Object.values(env).join('\n')).not.toContain('lc-secret');
  });

  it.each([
    'LC_ALL',
    'LC_CTYPE',
    'LC_NUMERIC',
    'LC_TIME',
    'LC_COLLATE',
    'LC_MONETARY',
    'LC_MESSAGES',
    'LC_PAPER',
    'LC_NAME',
    'LC_ADDRESS',
    'LC_TELEPHONE',
    'LC_MEASUREMENT',
    'LC_IDENTIFICATION',
  ])('allows the locale category %s', (name) => {
    expect(isAllowedByDefault(name)).toBe(true);
  });

  it('passes names listed in passthrough, and only those', () => {
    const withExtra = childEnvironment(source, ['MY_APP_SETTING', 'NOT_THERE']);
    expect(withExtra['MY_APP_SETTING']).toBe('on');
    expect(withExtra).not.toHaveProperty('NOT_THERE');
    expect(withExtra).not.toHaveProperty('GITHUB_TOKEN');
  });

  it('passthrough can let a named secret through deliberately', () => {
    expect(childEnvironment(source, ['GITHUB_TOKEN'])['GITHUB_TOKEN']).toBe('ghp_secret');
  });

  it('drops undefined values and keeps empty strings of passed names', () => {
    const e = childEnvironment(source, ['EMPTY', 'UNSET']);
    expect(e['EMPTY']).toBe('');
    expect(e).not.toHaveProperty('UNSET');
  });

  it('supplies a PATH when the source has none', () => {
    expect(childEnvironment({ HOME: '/h' })['PATH']).toBe('/usr/local/bin:/usr/bin:/bin');
  });

  it('does not match names by prefix or case', () => {
    expect(isAllowedByDefault('PATHX')).toBe(false);
    expect(isAllowedByDefault('path')).toBe(false);
    expect(isAllowedByDefault('HOME_DIR')).toBe(false);
    expect(isAllowedByDefault('LC_MESSAGES')).toBe(true);
    expect(isAllowedByDefault('lc_all')).toBe(false);
    expect(isAllowedByDefault('XLC_ALL')).toBe(false);
    expect(isAllowedByDefault('LC_')).toBe(false);
    expect(isAllowedByDefault('LC_ALLX')).toBe(false);
    expect(isAllowedByDefault('LC_ALL ')).toBe(false);
  });
});
