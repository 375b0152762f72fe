import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { parseOrThrow, ValidationError } from '../goo/validate';
import { LOCAL_MODEL_NAMES } from '../localllm/models';
import { configPath } from './config-path';

/**
 * Defaults for CLI options from a JSON config file: `--config <file>`, else $GOT_CONFIG, else
 * ./got.config.json when present. Precedence: flags > environment variables > config file > built-in defaults.
 */
export const CliConfig = z.strictObject({
  task: z.string().optional(),
  scheme: z.string().optional(),
  model: z.string().optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().positive().optional(),
  priceInput: z.number().min(0).optional(),
  priceOutput: z.number().min(0).optional(),
  budgetUsd: z.number().positive().optional(),
  budgetTokens: z.number().int().positive().optional(),
  latency: z.number().int().min(0).optional(),
  taskQueue: z.string().min(1).optional(),
  seed: z.number().int().min(0).optional(),
  concurrency: z.number().int().positive().optional(),
  stuckAfter: z.number().int().min(0).optional(),
  localModel: z.enum(LOCAL_MODEL_NAMES).optional(),
  keepWorker: z.boolean().optional(),
});
export type CliConfig = z.infer<typeof CliConfig>;

export { configPath, OPTION_ENV } from './config-path';

export function loadCliConfig(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): CliConfig {
  const path = configPath(argv, env);
  if (!path) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new ValidationError('config file', [{ path, message: `cannot read it as JSON: ${(e as Error).message}` }]);
  }
  return parseOrThrow(CliConfig, raw, `config file ${path}`);
}
