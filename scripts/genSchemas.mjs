// Generates docs/schema/: the JSON Schema of every tool's answer (structuredContent) and of the
// error answer, from the zod shapes in src/server (through dist/), so the published evidence
// contract is the code. `node scripts/genSchemas.mjs --write` rewrites the files; the docs test
// checks them.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod/v4';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const schemaDir = join(root, 'docs', 'schema');

/** Every schema file's name and text, in the order the index lists them. */
export async function renderSchemas() {
  const { allTools } = await import(join(root, 'dist/server/tools/index.js'));
  const { defaultConfig } = await import(join(root, 'dist/server/config.js'));
  const shapes = await import(join(root, 'dist/server/answers/shapes.js'));
  const common = {
    session: shapes.sessionShape.optional().describe('The session the answer is about: its state and latest stop.'),
    warnings: z.array(z.string()).optional().describe('Problems worth knowing that did not stop the call.'),
    evidence_version: z.literal(shapes.EVIDENCE_VERSION).describe('The version of this contract.'),
  };
  const files = [];
  const write = (name, title, schema) => {
    const json = z.toJSONSchema(schema, { target: 'draft-2020-12', unrepresentable: 'any', reused: 'ref' });
    files.push({ name, text: `${JSON.stringify({ title, ...json }, null, 2)}\n` });
  };
  for (const tool of allTools({ ...defaultConfig(), raw: 'read' })) {
    const { session: _session, warnings: _warnings, ...own } = tool.output.shape;
    write(`${tool.name}.json`, `${tool.name} answer`, z.object({ ...own, ...common }));
  }
  write(
    'error.json',
    'error answer (isError: true)',
    z.object({ error: shapes.errorShape, session: common.session, evidence_version: common.evidence_version }),
  );
  return files;
}

if (process.argv.includes('--write')) {
  mkdirSync(schemaDir, { recursive: true });
  for (const f of await renderSchemas()) writeFileSync(join(schemaDir, f.name), f.text);
  process.stdout.write(`wrote ${schemaDir}\n`);
} else if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await renderSchemas()) {
    const now = (() => {
      try {
        return readFileSync(join(schemaDir, f.name), 'utf8');
      } catch {
        return '';
      }
    })();
    process.stdout.write(`${now === f.text ? 'same   ' : 'changed'} ${f.name}\n`);
  }
}
