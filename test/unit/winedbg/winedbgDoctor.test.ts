// The doctor's winedbg lines: Wine's version, the launcher, and the prefix (where it is, how big,
// or when it will be made), read from a cache directory laid out as the server leaves it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { winedbgDoctor } from '../../../src/backends/winedbg/winedbgDoctor.js';
import { WineServices } from '../../../src/backends/winedbg/wineServices.js';
import { windowsToolsMissing } from '../../integration/winedbg/windowsFixtures.js';

const missing = windowsToolsMissing();
const dirs: string[] = [];

function services(): { services: WineServices; cache: string } {
  const cache = mkdtempSync(join(tmpdir(), 'dbg-mcp-doctor-'));
  dirs.push(cache);
  const s = new WineServices();
  s.configure({ cacheDir: cache });
  return { services: s, cache };
}

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe.skipIf(missing !== undefined)(`the doctor's winedbg lines${missing ? ` (${missing})` : ''}`, () => {
  it('no prefix yet: where it will be made and what that costs; the launcher is built at the first session', async () => {
    const { services: s, cache } = services();
    const checks = await winedbgDoctor({ paths: {} }, s);
    expect(checks.map((c) => c.name)).toEqual(['winedbg', 'winedbg launcher', 'wine prefix', 'wine32']);
    expect(checks[0]).toMatchObject({ ok: true, detail: expect.stringMatching(/^wine-\d+\.\d+/) });
    expect(checks[1]?.detail).toMatch(/x86_64-w64-mingw32-gcc builds it at the first session/);
    expect(checks[2]).toEqual({
      name: 'wine prefix',
      ok: true,
      detail: `${join(cache, 'wine-prefix')}: made at the first winedbg session (10-60 s, about 700 MB, once per machine)`,
    });
    expect(checks[3]?.detail).toMatch(/not known until the prefix exists/);
  });

  it('a prefix on disk: its path and its size; a launcher built: where', async () => {
    const { services: s, cache } = services();
    const prefix = join(cache, 'wine-prefix');
    mkdirSync(join(prefix, 'drive_c'), { recursive: true });
    writeFileSync(join(prefix, '.dbg-mcp-ready'), '');
    // 3 MiB of real blocks (the size is read from what the files occupy).
    writeFileSync(join(prefix, 'drive_c', 'filler'), Buffer.alloc(3 * 1024 * 1024, 1));
    writeFileSync(join(cache, 'dbgmcp-launch-0123456789abcdef.exe'), 'MZ');
    const checks = await winedbgDoctor({ paths: {} }, s);
    expect(checks[1]?.detail).toBe(`built in ${cache}: a program's output reaches dbg_io, its input comes from dbg_io`);
    expect(checks[2]?.detail).toBe(`${prefix} (ours, 3 MB)`);
  });
});
