// @vitest-environment node
// `npm test` also type-checks the app (tsconfig.json, strict): Vite's build
// only strips types, so without this a type error would ship unnoticed.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, it } from 'vitest';

it('has no TypeScript errors', () => {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const file = ts.findConfigFile(root, ts.sys.fileExists, 'tsconfig.json')!;
  const config = ts.readConfigFile(file, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const program = ts.createProgram(parsed.fileNames, parsed.options);
  const diags = ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${d.file.fileName.slice(root.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : '';
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
  expect(diags).toEqual([]);
}, 60_000);
