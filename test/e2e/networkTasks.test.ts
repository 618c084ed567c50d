// The five tasks over the network transports, each in one dbg_start call as over stdio
// (helpers/fiveTasks.ts): on loopback HTTP (the 2026-07-28 protocol, one request a call) and on the
// unix socket (2025-11-25, an MCP session), every answer checked against the published shapes.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diagnoseFiveTasks } from '../helpers/fiveTasks.js';
import { type CallResult, checkContract } from '../helpers/mcp.js';
import { type NetClient, privateDir, startNetworkServer } from '../helpers/networkServer.js';

function checked(c: NetClient): (name: string, args: Record<string, unknown>) => Promise<CallResult> {
  return async (name, args) => {
    const r = await c.call(name, args);
    checkContract(name, r.data, r.isError);
    return r;
  };
}

describe('five tasks over the network transports', { timeout: 120_000 }, () => {
  for (const [via, era] of [
    ['loopback HTTP', 'auto'],
    ['the unix socket', 'legacy'],
  ] as const) {
    it(`diagnoses each from its dbg_start answer alone, over ${via}`, async () => {
      const args = via === 'loopback HTTP' ? ['--http', '127.0.0.1:0'] : ['--unix', join(privateDir(), 'dbg.sock')];
      const server = await startNetworkServer(args);
      const c = await server.connect({ era });
      const sizes = await diagnoseFiveTasks(checked(c));
      const total = sizes.reduce((a, b) => a + b, 0);
      console.log(`five tasks over ${via}: 5 calls, ${total} characters of text (${sizes.join(' + ')})`);
      expect(total).toBeLessThan(6700);
      // All five stay open, the caller's, until closed.
      const listed = (await c.call('dbg_sessions', {})).data.sessions as { id: string }[];
      expect(listed).toHaveLength(5);
      for (const s of listed) expect((await c.call('dbg_close', { session_id: s.id })).data.closed).toBe(true);
    });
  }
});
