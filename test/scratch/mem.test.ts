import { it } from 'vitest';
import { RawServer } from '../helpers/rawServer.js';
import { fixture } from '../helpers/paths.js';
import { rssKiB } from '../helpers/procfs.js';
it('mem', async () => {
  const s = await RawServer.start();
  const samples: number[] = [];
  for (let i = 0; i < 400; i++) {
    const r = await s.call('dbg_start', { program: fixture('hello'), stop: 'main', inspect: ['none'] });
    await s.call('dbg_close', { session_id: r.session_id });
    if (i % 25 === 0) samples.push(rssKiB(s.child.pid as number));
  }
  process.stdout.write(`SAMPLES ${samples.join(' ')}\n`);
  await s.close();
}, 300000);
