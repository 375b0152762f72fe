import { existsSync } from 'node:fs';
import { LOCAL_MODEL_NAME_ENV } from '../localllm/models';
import type { CliConfig } from './config';

// Free of zod: the CLI declares its options with these before it knows whether a config file exists.

/** The environment variable behind each option that has one. */
export const OPTION_ENV = {
  model: 'GOT_MODEL',
  temperature: 'GOT_TEMPERATURE',
  priceInput: 'GOT_PRICE_INPUT',
  priceOutput: 'GOT_PRICE_OUTPUT',
  budgetUsd: 'GOT_BUDGET_USD',
  budgetTokens: 'GOT_BUDGET_TOKENS',
  latency: 'GOT_SIM_LATENCY_MS',
  taskQueue: 'GOT_TASK_QUEUE',
  stuckAfter: 'GOT_STUCK_AFTER',
  localModel: LOCAL_MODEL_NAME_ENV,
  keepWorker: 'GOT_KEEP_WORKER',
} as const satisfies Partial<Record<keyof CliConfig, string>>;

/** The config file to read: `--config <file>`, else $GOT_CONFIG, else ./got.config.json when present. */
export function configPath(argv: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  const at = argv.findIndex((a) => a === '--config' || a.startsWith('--config='));
  if (at >= 0) return argv[at]!.includes('=') ? argv[at]!.split('=')[1] : argv[at + 1];
  if (env.GOT_CONFIG) return env.GOT_CONFIG;
  return existsSync('got.config.json') ? 'got.config.json' : undefined;
}
