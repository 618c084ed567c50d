// What every agent pays for on every turn: tools/list. It must stay small, and every tool must
// describe itself and each of its fields.
import { describe, expect, it } from 'vitest';
import { startServer } from '../helpers/mcp.js';

describe('tools/list', () => {
  it('stays under 18 KB, with descriptions, described fields, output schemas and honest annotations', async () => {
    const h = await startServer();
    const { tools } = await h.client.listTools();
    const size = JSON.stringify({ tools }).length;
    expect(size).toBeLessThan(18 * 1024);
    for (const tool of tools) {
      expect(tool.name).toMatch(/^dbg_[a-z]+$/);
      expect(tool.description?.length ?? 0).toBeGreaterThan(60);
      expect(tool.outputSchema).toBeDefined();
      // Hints equal to the spec's defaults are left out (readOnly false, destructive true,
      // idempotent false); openWorldHint is always false.
      expect(tool.annotations).toMatchObject({ openWorldHint: false });
      const readOnly = ['dbg_inspect', 'dbg_disassemble', 'dbg_batch', 'dbg_sessions', 'dbg_doctor'].includes(
        tool.name,
      );
      expect(tool.annotations?.readOnlyHint === true, `${tool.name} readOnlyHint`).toBe(readOnly);
      const props = (tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>;
      for (const [field, schema] of Object.entries(props)) {
        expect(schema.description, `${tool.name}.${field} has no description`).toBeTruthy();
      }
      expect(tool.inputSchema.additionalProperties).toBe(false);
    }
  });

  it('hides dbg_command when raw commands are off', async () => {
    const h = await startServer(['--raw', 'off']);
    const { tools } = await h.client.listTools();
    expect(tools.map((t) => t.name)).not.toContain('dbg_command');
  });
});
