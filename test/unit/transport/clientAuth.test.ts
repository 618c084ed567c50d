// Who a request is: the token's name, `local` on the socket without a token, `loopback` on TCP
// when no token file is given; 401 with the SDK's challenge otherwise. The token never travels on.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ClientAuth } from '../../../src/transport/clientAuth.js';
import { TokenStore } from '../../../src/transport/tokenStore.js';

const TOKEN = 'alice-0123456789abcdef0123';
const dir = mkdtempSync(join(tmpdir(), 'dbg-mcp-auth-'));
const file = join(dir, 'tokens');
writeFileSync(file, `alice:${TOKEN}\n`);
chmodSync(file, 0o600);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ClientAuth without a token file', () => {
  const auth = new ClientAuth(undefined);
  it('names clients by where they came from', async () => {
    expect(await auth.authenticate(undefined, 'tcp')).toMatchObject({ ok: true, auth: { clientId: 'loopback' } });
    expect(await auth.authenticate(undefined, 'unix')).toMatchObject({ ok: true, auth: { clientId: 'local' } });
  });
});

describe('ClientAuth with a token file', () => {
  const auth = new ClientAuth(TokenStore.load(file));

  it('names the client of a good token and keeps the token out of what goes on', async () => {
    for (const via of ['tcp', 'unix'] as const) {
      const r = await auth.authenticate(`Bearer ${TOKEN}`, via);
      expect(r).toMatchObject({ ok: true, auth: { clientId: 'alice', token: '', extra: { via } } });
      expect(JSON.stringify(r)).not.toContain(TOKEN);
    }
  });

  it('answers 401 with a Bearer challenge when TCP brings no token or a wrong one', async () => {
    const cases = [
      [undefined, 'no_token'],
      ['', 'no_token'],
      [`Bearer ${TOKEN}x`, 'bad_token'],
      [`Basic ${TOKEN}`, 'bad_token'],
    ] as const;
    for (const [header, reason] of cases) {
      const r = await auth.authenticate(header, 'tcp');
      if (r.ok) throw new Error(`accepted ${header}`);
      expect(r.reason).toBe(reason);
      expect(r.response.status).toBe(401);
      expect(r.response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
      expect(await r.response.text()).not.toContain(TOKEN);
    }
  });

  it('on the socket, no token is `local`, and a wrong token is still refused', async () => {
    expect(await auth.authenticate(undefined, 'unix')).toMatchObject({ ok: true, auth: { clientId: 'local' } });
    expect(await auth.authenticate('Bearer nope-nope-nope-nope', 'unix')).toMatchObject({
      ok: false,
      reason: 'bad_token',
    });
  });
});
