// Finding libstdc++'s printers as each distribution lays them out (built in a temporary tree),
// and what loading says when GDB has no Python or the printers are missing.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  findLibstdcxxPrinters,
  libstdcxxPrinterCommand,
  loadLibstdcxxPrinters,
  pythonDirOfScript,
} from '../../../src/backends/gdb/gdbPrettyPrinters.js';

const root = mkdtempSync(join(tmpdir(), 'dbg-mcp-printers-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A tree under the temporary root with printers.py at `dir/libstdcxx/v6/`. */
function printersAt(dir: string): string {
  const full = join(root, dir);
  mkdirSync(join(full, 'libstdcxx', 'v6'), { recursive: true });
  writeFileSync(join(full, 'libstdcxx', 'v6', 'printers.py'), '# printers\n');
  return full;
}

// The lines of Debian 12's /usr/share/gdb/auto-load/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30-gdb.py
// that matter (the rest is comments and code that is never run here).
const debianScript = (pythondir: string): string =>
  `# -*- python -*-\nimport sys\nimport gdb\nimport os\nimport os.path\n\npythondir = '${pythondir}'\nlibdir = '/usr/lib/x86_64-linux-gnu'\n`;

describe('findLibstdcxxPrinters', () => {
  it("takes the path written in libstdc++'s auto-load script (Debian), without running it", () => {
    const dir = printersAt('debian/usr/share/gcc/python');
    const autoLoad = join(root, 'debian/auto-load/usr/lib/x86_64-linux-gnu');
    mkdirSync(autoLoad, { recursive: true });
    writeFileSync(join(autoLoad, 'libstdc++.so.6.0.30-gdb.py'), debianScript(dir));
    expect(
      findLibstdcxxPrinters({ autoLoadDirs: [join(root, 'debian/auto-load')], shareDirs: [join(root, 'none')] }),
    ).toEqual({ pythonDir: dir, foundBy: 'auto-load script' });
  });

  it('falls back to the newest /usr/share/gcc-N/python (Fedora, Arch)', () => {
    printersAt('fedora/share/gcc-9/python');
    const newest = printersAt('fedora/share/gcc-14/python');
    printersAt('fedora/share/gcc-13/python');
    expect(findLibstdcxxPrinters({ autoLoadDirs: [], shareDirs: [join(root, 'fedora/share')] })).toEqual({
      pythonDir: newest,
      foundBy: 'known location',
    });
  });

  it("finds Gentoo's /usr/share/gcc-data/CHOST/N/python", () => {
    const dir = printersAt('gentoo/share/gcc-data/x86_64-pc-linux-gnu/13/python');
    expect(findLibstdcxxPrinters({ autoLoadDirs: [], shareDirs: [join(root, 'gentoo/share')] })?.pythonDir).toBe(dir);
  });

  it('finds nothing where there is nothing, and skips a script whose path has no printers', () => {
    const autoLoad = join(root, 'stale/auto-load');
    mkdirSync(autoLoad, { recursive: true });
    writeFileSync(join(autoLoad, 'libstdc++.so.6.0.33-gdb.py'), debianScript('/nonexistent/python'));
    expect(findLibstdcxxPrinters({ autoLoadDirs: [autoLoad], shareDirs: [join(root, 'empty')] })).toBeUndefined();
  });

  it('reads pythondir only from its assignment line', () => {
    expect(pythonDirOfScript(debianScript('/usr/share/gcc/python'))).toBe('/usr/share/gcc/python');
    expect(pythonDirOfScript("x = 1\n# pythondir = '/not/this'\n")).toBeUndefined();
  });
});

describe('loadLibstdcxxPrinters', () => {
  const printers = { pythonDir: '/usr/share/gcc/python', foundBy: 'known location' as const };

  it('sends one python command that names the directory and the cache', async () => {
    const sent: string[] = [];
    const status = await loadLibstdcxxPrinters(
      async (c) => {
        sent.push(c);
      },
      { printers, cacheDir: '/home/u/.cache/dbg-mcp/python' },
    );
    expect(status).toMatchObject({ state: 'loaded', pythonDir: '/usr/share/gcc/python' });
    expect(sent).toEqual([libstdcxxPrinterCommand('/usr/share/gcc/python', '/home/u/.cache/dbg-mcp/python')]);
    expect(sent[0]).not.toMatch(/\n/);
    expect(sent[0]).toMatch(/register_libstdcxx_printers\(None\)/);
  });

  it('says when this gdb has no Python (its own error text)', async () => {
    const status = await loadLibstdcxxPrinters(
      () => Promise.reject(new Error('Python scripting is not supported in this copy of GDB.')),
      { printers },
    );
    expect(status.state).toBe('no-python');
    expect(status.detail).toMatch(/built without Python/);
  });

  it('says when the printers are missing, and sends nothing', async () => {
    const sent: string[] = [];
    const status = await loadLibstdcxxPrinters(
      async (c) => {
        sent.push(c);
      },
      { printers: null },
    );
    expect(status.state).toBe('not-found');
    expect(sent).toEqual([]);
  });

  it('reports any other failure with its message', async () => {
    const status = await loadLibstdcxxPrinters(() => Promise.reject(new Error('Error while executing Python code.')), {
      printers,
    });
    expect(status).toMatchObject({ state: 'failed', detail: expect.stringMatching(/Error while executing Python/) });
  });
});
