import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { parseOrThrow, ValidationError } from '../../goo/validate';
import { TaskDeclaration, type TaskDeclarationInput } from './schema';

/**
 * Reading a task declaration from a file, for the CLI (`--task-file`): JSON (`.json`) or YAML
 * (`.yaml`, `.yml`). The declaration is checked here already, so a mistake is reported with the
 * file's name before anything starts; what a run request carries is the file's content as data.
 */

/** The npm package (and version) that reads YAML; JSON needs nothing. */
export const YAML_PACKAGE = 'yaml@2.9.1';

interface YamlModule {
  parse(text: string, options?: Record<string, unknown>): unknown;
}

function yamlModule(): YamlModule | undefined {
  try {
    return createRequire(import.meta.url)('yaml') as YamlModule;
  } catch {
    return undefined;
  }
}

/** Parses a declaration's text by its format; throws a ValidationError naming the file (and line, for YAML). */
export function parseDeclarationText(text: string, format: 'json' | 'yaml', source = 'the task file'): unknown {
  const refuse = (message: string): never => {
    throw new ValidationError('task file', [{ path: source, message }]);
  };
  if (format === 'json') {
    try {
      return JSON.parse(text) as unknown;
    } catch (e) {
      return refuse(`not valid JSON: ${(e as Error).message}`);
    }
  }
  const yaml = yamlModule();
  if (!yaml)
    return refuse(
      `YAML task files need the "${YAML_PACKAGE.split('@')[0]}" package (npm install ${YAML_PACKAGE}); a JSON task file works without it`,
    );
  try {
    // Core schema: plain JSON-like data, no custom tags; aliases are bounded (no "billion laughs").
    return yaml.parse(text, { schema: 'core', uniqueKeys: true, maxAliasCount: 100, prettyErrors: true });
  } catch (e) {
    return refuse(`not valid YAML: ${(e as Error).message}`);
  }
}

export function formatOf(path: string): 'json' | 'yaml' {
  const ext = extname(path).toLowerCase();
  if (ext === '.json') return 'json';
  if (ext === '.yaml' || ext === '.yml') return 'yaml';
  throw new ValidationError('task file', [{ path, message: `expected a .json, .yaml or .yml file, got "${ext || 'no extension'}"` }]);
}

/** Reads and checks a declaration file; issues are reported as `task.<field>`, under the file's name. */
export function loadTaskDeclaration(path: string): TaskDeclarationInput {
  const format = formatOf(path);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ValidationError('task file', [
      { path, message: `cannot read it: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` },
    ]);
  }
  const data = parseDeclarationText(text, format, path);
  parseOrThrow(TaskDeclaration, data, `task declaration in ${path}`, 'task');
  // The file's own data, not the parsed form: defaults are filled where the run request is checked.
  return data as TaskDeclarationInput;
}
