// --config FILE (and DBG_MCP_CONFIG): the same settings as the flags, by the same names without
// the dashes and checked by the same code; variables and flags override the file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OptionError, parseCommandLine } from '../../../src/cli/options.js';

const dir = mkdtempSync(join(tmpdir(), 'dbg-mcp-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function file(content: unknown): string {
  const path = join(dir, `config-${n++}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}
function refusal(argv: string[], env: NodeJS.ProcessEnv = {}): string {
  try {
    parseCommandLine(argv, env);
  } catch (e) {
    expect(e).toBeInstanceOf(OptionError);
    return (e as Error).message;
  }
  throw new Error('parsed without a refusal');
}

describe('--config FILE', () => {
  it('reads the settings of the flags by their names: lists, numbers, on/off', () => {
    const path = file({
      root: ['/src/a', '/src/b'],
      'max-sessions': 6,
      'allow-remote': true,
      'remote-hosts': ['lab1', '10.0.0.0/8'],
      raw: 'off',
    });
    const { config, transport } = parseCommandLine(['serve', '--config', path], {});
    expect(config.roots).toEqual(['/src/a', '/src/b']);
    expect(config.maxSessions).toBe(6);
    expect(transport.allowRemote).toBe(true);
    expect(config.raw).toBe('off');
    // The same from DBG_MCP_CONFIG, and with --config=FILE.
    expect(parseCommandLine([], { DBG_MCP_CONFIG: path }).config.maxSessions).toBe(6);
    expect(parseCommandLine([`--config=${path}`], {}).config.maxSessions).toBe(6);
  });

  it('is overridden by the variables, and they by the flags', () => {
    const path = file({ 'max-sessions': 6, root: ['/from/file'] });
    const env = { DBG_MCP_MAX_SESSIONS: '7' };
    expect(parseCommandLine(['--config', path], env).config.maxSessions).toBe(7);
    expect(parseCommandLine(['--config', path, '--max-sessions', '8'], env).config.maxSessions).toBe(8);
    expect(parseCommandLine(['--config', path, '--root', '/from/flag'], env).config.roots).toEqual(['/from/flag']);
  });

  it('refuses what a flag would refuse, naming the file and the key', () => {
    const path = file({ 'max-sessions': 0 });
    expect(refusal(['--config', path])).toMatch(
      new RegExp(`^${path.replace(/[.]/g, '\\.')}: "max-sessions": 0 is out of range`),
    );
    expect(refusal(['--config', file({ raw: 'on' })])).toMatch(/"raw": /);
    expect(refusal(['--config', file({ 'max-sessions': { n: 1 } })])).toMatch(
      /"max-sessions": \{"n":1\} is not a value of --max-sessions/,
    );
    expect(refusal(['--config', file({ 'max-sessions': [1] })])).toMatch(/is not a value of --max-sessions/);
  });

  it('refuses an unknown key with the nearest setting, and --config inside the file', () => {
    expect(refusal(['--config', file({ 'max-sesions': 2 })])).toMatch(
      /"max-sesions" is not a setting of dbg-mcp \(did you mean "max-sessions"\?\)/,
    );
    expect(refusal(['--config', file({ config: '/etc/other.json' })])).toMatch(/"config" is not a setting/);
  });

  it('refuses a missing file, a file that is not JSON, and JSON that is not one object', () => {
    expect(refusal(['--config', join(dir, 'nope.json')])).toMatch(
      /--config .*nope\.json: no such file \(a JSON object of settings/,
    );
    expect(refusal(['--config', file('{"root": ')])).toMatch(/: not JSON \(/);
    expect(refusal(['--config', file([1, 2])])).toMatch(/must hold one JSON object of settings/);
    expect(refusal(['--config'])).toMatch(/--config needs a value/);
  });

  it('a mistyped flag on the command line gets the nearest one', () => {
    expect(refusal(['--max-sesions', '3'])).toMatch(
      /unknown argument "--max-sesions" \(did you mean --max-sessions\?\)/,
    );
    expect(refusal(['--zzzzzzzz'])).not.toMatch(/did you mean/);
  });
});
