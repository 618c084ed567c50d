// Resources and prompts end to end: the guide, the session list and one session as JSON, and the
// three diagnosis prompts with the program and its arguments filled in.
import { describe, expect, it } from 'vitest';
import { startServer } from '../helpers/mcp.js';
import { fixture } from '../helpers/paths.js';

function textOf(r: { contents: readonly object[] }): string {
  const first = r.contents[0] as { text?: unknown } | undefined;
  return String(first?.text ?? '');
}

function promptText(r: { messages: { content: unknown }[] }): string {
  const content = r.messages[0]?.content as { text?: string } | undefined;
  return content?.text ?? '';
}

describe('resources', () => {
  it('lists the guide, the sessions and the session template', async () => {
    const h = await startServer();
    const { resources } = await h.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(['dbg://guide', 'dbg://sessions']));
    const { resourceTemplates } = await h.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('dbg://session/{id}');
  });

  it('serves a guide with the workflows as tool calls, the evidence model and the bounds', async () => {
    const h = await startServer();
    const r = await h.client.readResource({ uri: 'dbg://guide' });
    expect(r.contents[0]?.mimeType).toBe('text/markdown');
    const guide = textOf(r);
    for (const heading of [
      '## A crash',
      '## A hang',
      '## A wrong value',
      '## Going backwards',
      '## Stops, stop ids and stale_context',
      '## Views',
      '## Bounds',
    ]) {
      expect(guide).toContain(heading);
    }
    expect(guide).toContain('dbg_start {"program"');
    expect(guide).toContain('record full');
    expect(guide).toContain('stale_context');
    expect(guide).toContain('65536');
    const off = await startServer(['--raw', 'off']);
    expect(textOf(await off.client.readResource({ uri: 'dbg://guide' }))).toContain('--raw off');
  });

  it('shows the sessions and one session as JSON, and lists each open session', async () => {
    const h = await startServer();
    const s = await h.call('dbg_start', { program: fixture('hello'), breakpoints: [{ location: 'add' }] });
    const id = s.data.session_id as string;
    const list = JSON.parse(textOf(await h.client.readResource({ uri: 'dbg://sessions' })));
    expect(list.sessions).toHaveLength(1);
    expect(list.sessions[0]).toMatchObject({ id, state: 'stopped', stop_id: 1 });

    const { resources } = await h.client.listResources();
    expect(resources.map((r) => r.uri)).toContain(`dbg://session/${id}`);

    const one = await h.client.readResource({ uri: `dbg://session/${id}` });
    expect(one.contents[0]?.mimeType).toBe('application/json');
    const detail = JSON.parse(textOf(one));
    expect(detail).toMatchObject({
      id,
      state: 'stopped',
      stop_id: 1,
      last_stop: { stop_id: 1, reason: 'breakpoint-hit', frame: { function: 'add' } },
      breakpoints: [{ number: '1', function: 'add', hits: 1 }],
      threads: [{ id: 1, inferior: 'i1' }],
      inferiors: [{ id: 'i1', pid: expect.any(Number) }],
    });
    expect(detail.libraries).toBeGreaterThan(0);
    expect(detail.debugger).toMatch(/GNU gdb/);

    await expect(h.client.readResource({ uri: 'dbg://session/deadbeef' })).rejects.toThrow(/deadbeef/);
  });
});

describe('prompts', () => {
  it('lists the three diagnoses with their arguments', async () => {
    const h = await startServer();
    const { prompts } = await h.client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['diagnose_crash', 'diagnose_hang', 'find_wrong_value']);
    const crash = prompts.find((p) => p.name === 'diagnose_crash');
    expect(crash?.arguments?.map((a) => [a.name, a.required ?? false])).toEqual([
      ['program', true],
      ['args', false],
      ['stdin', false],
    ]);
  });

  it('fills the program and its arguments into the exact tool calls', async () => {
    const h = await startServer();
    const crash = await h.client.getPrompt({
      name: 'diagnose_crash',
      arguments: { program: 'build/crash', args: '["segv", "a b"]' },
    });
    const text = promptText(crash);
    expect(crash.messages[0]?.role).toBe('user');
    expect(text).toContain('dbg_start {"program":"build/crash","args":["segv","a b"]}');
    expect(text).toContain('dbg_close {"session_id":"S"}');

    const hang = await h.client.getPrompt({
      name: 'diagnose_hang',
      arguments: { program: 'build/spin', seconds: '2' },
    });
    expect(promptText(hang)).toContain('dbg_start {"program":"build/spin","timeout_ms":2000,"on_timeout":"interrupt"}');

    const value = await h.client.getPrompt({
      name: 'find_wrong_value',
      arguments: { program: 'build/loop', expression: 'total', location: 'loop.c:13' },
    });
    const vt = promptText(value);
    expect(vt).toContain('dbg_start {"program":"build/loop","breakpoints":[{"location":"loop.c:13"}]}');
    expect(vt).toContain('"kind":"watchpoint","expression":"total"');
  });

  it('refuses arguments that are not a JSON array of strings', async () => {
    const h = await startServer();
    await expect(
      h.client.getPrompt({ name: 'diagnose_crash', arguments: { program: 'build/crash', args: 'segv a' } }),
    ).rejects.toThrow(/JSON array of strings/);
  });
});
