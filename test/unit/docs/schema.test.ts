// The published evidence contract (docs/schema/) is generated from the code and must match it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/paths.js';

describe('docs/schema', () => {
  it('holds exactly the JSON Schemas the answer shapes generate (node scripts/genSchemas.mjs --write)', async () => {
    // @ts-expect-error: a plain .mjs script without types
    const { renderSchemas, schemaDir } = await import('../../../scripts/genSchemas.mjs');
    const files: { name: string; text: string }[] = await renderSchemas();
    expect(files.length).toBeGreaterThanOrEqual(15);
    expect(
      readdirSync(schemaDir)
        .filter((f) => f.endsWith('.json'))
        .sort(),
    ).toEqual(files.map((f) => f.name).sort());
    for (const f of files) expect(readFileSync(join(schemaDir, f.name), 'utf8'), f.name).toBe(f.text);
  });

  it('documents what the absence of an optional field means, for the evidence shapes', () => {
    const start = JSON.parse(readFileSync(join(repoRoot, 'docs', 'schema', 'dbg_start.json'), 'utf8'));
    const crash = start.$defs.CrashView;
    for (const field of ['source', 'instruction', 'output_tail', 'depth']) {
      expect(crash.properties[field].description, `CrashView.${field}`).toMatch(/absent|present/i);
    }
    expect(start.properties.evidence_version.const).toBe(1);
  });
});
